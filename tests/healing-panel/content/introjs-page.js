/* global document, introJs */
// Intro.js on the Bookshop's pages of ours (served by the healing bench's
// starter): a product tour of the catalogue, started by its "Take the tour"
// button, and tips (hints) on the orders page, shown by its "Show tips"
// button. The same options and callbacks on every version; the page says
// in #status how the tour or a tip ended.
(function () {
  var status = document.getElementById('status');
  var say = function (text) {
    status.textContent = text;
  };
  var tour = document.getElementById('tour');
  if (tour) {
    tour.addEventListener('click', function () {
      var finished = false;
      introJs()
        .setOptions({
          steps: [
            { intro: 'Welcome to the Bookshop! This short tour shows you around.' },
            { element: '#search', intro: 'Search the catalogue by title or author.' },
            { element: '#books', intro: 'Every book we sell, with its price and an Add to cart button.' },
            { element: '#cart', intro: 'Your cart: the books you have added so far.' },
            { element: '#nav', intro: 'Your past orders are under Orders.' },
          ],
          showProgress: true,
          showBullets: true,
          exitOnOverlayClick: false,
        })
        .oncomplete(function () {
          finished = true;
          say('Tour finished: you know your way around.');
        })
        .onexit(function () {
          if (!finished) say('Tour closed before the end.');
        })
        .start();
    });
  }
  var tips = document.getElementById('tips');
  if (tips) {
    tips.addEventListener('click', function () {
      introJs()
        .setOptions({
          hints: [
            { element: '#reorder-1042', hint: 'Order the same books again, at today\u2019s prices.', hintPosition: 'middle-right' },
            { element: '#track-1041', hint: 'Follow the parcel with the carrier.', hintPosition: 'middle-right' },
          ],
        })
        .onhintclose(function () {
          say('Tip dismissed.');
        })
        .addHints();
    });
  }
  document.querySelectorAll('.add').forEach(function (button) {
    button.addEventListener('click', function () {
      var count = document.getElementById('cart-count');
      count.textContent = String(Number(count.textContent) + 1);
      say(button.getAttribute('data-title') + ' added to your cart.');
    });
  });
})();
