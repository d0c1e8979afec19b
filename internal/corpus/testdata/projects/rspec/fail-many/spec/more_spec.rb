require "cart"

RSpec.describe Cart do
  describe ".parse_price formats" do
    it("parses 1.5") { expect(Cart.parse_price("1.5")).to eq(150) }
    it("parses 1,50") { expect(Cart.parse_price("1,50")).to eq(150) }
    it("parses -2.25") { expect(Cart.parse_price("-2.25")).to eq(-225) }
  end

  describe "totals" do
    it "adds an unknown item" do
      Cart.new("apple" => 1).add("kiwi")
    end

    it "totals two pears" do
      cart = Cart.new("pear" => 2).add("pear", 2)
      expect(total: cart.total("pear" => 70)).to eq(total: 150, currency: "EUR")
    end

    it "prices a fig" do
      expect(Cart.new("fig" => 1).add("fig").total({})).to be > 0
    end
  end
end
