require "cart"

RSpec.describe "Discount" do
  it "gives 10% off the total" do
    cart = Cart.new("apple" => 5).add("apple", 4)
    expect(cart.total("apple" => 50)).to eq(180)
  end
end
