# A shopping cart.
class Cart
  class OutOfStock < StandardError; end

  attr_reader :items

  def initialize(stock)
    @stock = stock.dup
    @items = Hash.new(0)
  end

  def add(item, n = 1)
    if @stock.fetch(item, 0) < n
      warn "ERROR: cannot add #{n} #{item}: out of stock"
      raise OutOfStock, item
    end
    @stock[item] -= n
    @items[item] += n
    self
  end

  def total(prices)
    @items.sum { |item, n| prices.fetch(item) * n }
  end

  def count
    warn "DEPRECATION WARNING: Cart#count is deprecated, use items.size (called from #{caller(1..1).first})"
    @items.values.sum
  end

  def self.parse_price(s)
    whole, cents = s.strip.split(".", 2)
    Integer(whole, 10) * 100 + Integer("#{cents}00"[0, 2], 10)
  end
end
