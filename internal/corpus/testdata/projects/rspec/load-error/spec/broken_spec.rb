require "cart"

RSpec.describe Discount do
  it "applies" do
    expect(Discount.new(10).percent).to eq(10)
  end
end
