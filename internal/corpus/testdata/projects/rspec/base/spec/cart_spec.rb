require "cart"

RSpec.describe Cart do
  describe "#add" do
    it "adds items" do
      expect(Cart.new("apple" => 3).add("apple", 2).items).to eq("apple" => 2)
    end

    it "refuses what is out of stock" do
      expect { Cart.new("pear" => 1).add("pear", 2) }.to raise_error(Cart::OutOfStock)
    rescue Cart::OutOfStock => e
      puts e.full_message
    end

    it "prints the stack of an expected error" do
      begin
        Cart.new({}).add("fig")
      rescue Cart::OutOfStock => e
        puts "Failure/Error: #{e.class}: #{e.message} (expected)"
        puts e.backtrace.first(2)
      end
    end

    it "counts, with a deprecation warning" do
      expect(Cart.new("apple" => 1).add("apple").count).to eq(1)
    end
  end

  describe ".parse_price" do
    it "parses cents" do
      expect(Cart.parse_price("3.50")).to eq(350)
      expect(Cart.parse_price(" 0.05 ")).to eq(5)
    end

    it "rejects garbage" do
      expect { Cart.parse_price("abc") }.to raise_error(ArgumentError)
    end
  end

  it "checks out" do
    pending "the payment sandbox"
    expect(Cart.new({}).total({})).to eq(1)
  end

  xit "applies coupons"
end
