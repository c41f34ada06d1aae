/* global QUnit */
// The Bookshop's own unit tests, run in the browser by QUnit's HTML runner.
function price(book, discount) {
  return Math.round(book.price * (1 - discount) * 100) / 100;
}
QUnit.module('pricing');
QUnit.test('full price', function (assert) {
  assert.equal(price({ price: 20 }, 0), 20, 'no discount');
});
QUnit.test('ten percent off', function (assert) {
  assert.equal(price({ price: 20 }, 0.1), 18, 'a tenth less');
});
QUnit.module('stock');
QUnit.test('a book in stock can be sold', function (assert) {
  var stock = { Dune: 2 };
  stock.Dune -= 1;
  assert.equal(stock.Dune, 1, 'one left');
});
QUnit.test('titles are sorted', function (assert) {
  assert.deepEqual(['Emma', 'Dune'].sort(), ['Dune', 'Emma'], 'alphabetical');
});
QUnit.module('orders');
QUnit.test('an order totals its lines', function (assert) {
  var lines = [{ quantity: 2, price: 9.5 }, { quantity: 1, price: 4 }];
  assert.equal(lines.reduce(function (t, l) { return t + l.quantity * l.price; }, 0), 23, 'total');
});
