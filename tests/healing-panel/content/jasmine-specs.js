// The Bookshop's own specs, run in the browser by Jasmine's standalone spec runner.
function price(book, discount) {
  return Math.round(book.price * (1 - discount) * 100) / 100;
}
describe('pricing', function () {
  it('keeps the full price without a discount', function () {
    expect(price({ price: 20 }, 0)).toBe(20);
  });
  it('takes ten percent off', function () {
    expect(price({ price: 20 }, 0.1)).toBe(18);
  });
});
describe('stock', function () {
  it('sells a book in stock', function () {
    var stock = { Dune: 2 };
    stock.Dune -= 1;
    expect(stock.Dune).toBe(1);
  });
  it('sorts titles', function () {
    expect(['Emma', 'Dune'].sort()).toEqual(['Dune', 'Emma']);
  });
  xit('reserves a book for a customer', function () {
    expect(true).toBe(true);
  });
});
describe('orders', function () {
  it('totals its lines', function () {
    var lines = [{ quantity: 2, price: 9.5 }, { quantity: 1, price: 4 }];
    expect(lines.reduce(function (t, l) { return t + l.quantity * l.price; }, 0)).toBe(23);
  });
  it('charges shipping under 25', function () {
    // A known failure the team keeps visible: shipping is not charged yet.
    expect(0).toBe(4.5);
  });
});
