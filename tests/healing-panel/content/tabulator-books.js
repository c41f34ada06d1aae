/* global window, document, Tabulator */
// The Bookshop's catalogue in Tabulator tables (the same options on every
// version; only how local pagination is switched on changed, set by the page):
// the catalogue (#books) and the books grouped by author (#authors).
const BOOKS = [
  { id: 1, title: 'Dune', author: 'Frank Herbert', year: 1965, price: 9.99, stock: 12 },
  { id: 2, title: 'Emma', author: 'Jane Austen', year: 1815, price: 6.5, stock: 4 },
  { id: 3, title: 'Middlemarch', author: 'George Eliot', year: 1871, price: 8.25, stock: 0 },
  { id: 4, title: 'Persuasion', author: 'Jane Austen', year: 1817, price: 5.75, stock: 7 },
  { id: 5, title: 'Solaris', author: 'Stanisław Lem', year: 1961, price: 10.4, stock: 3 },
  { id: 6, title: 'The Hobbit', author: 'J. R. R. Tolkien', year: 1937, price: 11.2, stock: 15 },
  { id: 7, title: 'Ulysses', author: 'James Joyce', year: 1922, price: 13.9, stock: 2 },
  { id: 8, title: 'Walden', author: 'Henry David Thoreau', year: 1854, price: 7.3, stock: 5 },
  { id: 9, title: 'Beloved', author: 'Toni Morrison', year: 1987, price: 12.6, stock: 9 },
  { id: 10, title: 'Kindred', author: 'Octavia E. Butler', year: 1979, price: 9.1, stock: 0 },
  { id: 11, title: 'Rebecca', author: 'Daphne du Maurier', year: 1938, price: 8.8, stock: 6 },
  { id: 12, title: 'Sense and Sensibility', author: 'Jane Austen', year: 1811, price: 6.9, stock: 11 },
];
const hide = [{ label: 'Hide column', action: (e, column) => column.hide() }];

if (document.getElementById('books')) {
  window.table = new Tabulator('#books', {
    data: BOOKS,
    layout: 'fitColumns',
    pagination: window.PAGINATION,
    paginationSize: 5,
    paginationSizeSelector: [5, 10, 20],
    initialSort: [{ column: 'title', dir: 'asc' }],
    columns: [
      { title: 'Title', field: 'title', headerFilter: 'input', headerFilterPlaceholder: 'Filter titles' },
      { title: 'Author', field: 'author', headerFilter: 'input', headerFilterPlaceholder: 'Filter authors' },
      { title: 'Year', field: 'year', sorter: 'number', hozAlign: 'right' },
      { title: 'Price', field: 'price', sorter: 'number', hozAlign: 'right', formatter: 'money', formatterParams: { symbol: '€ ' } },
      { title: 'Stock', field: 'stock', sorter: 'number', hozAlign: 'right', editor: 'number', editorParams: { min: 0 } },
    ],
  });
  document.getElementById('add').addEventListener('click', () => window.table.addRow({ title: 'New book', author: '', price: 0, stock: 0 }, true));
  document.getElementById('clear').addEventListener('click', () => window.table.clearHeaderFilter());
}

if (document.getElementById('authors')) {
  // Grouped by author, the groups closed; a menu in each column's header hides it.
  window.table = new Tabulator('#authors', {
    data: BOOKS,
    layout: 'fitColumns',
    groupBy: 'author',
    groupStartOpen: false,
    initialSort: [{ column: 'year', dir: 'asc' }],
    columns: [
      { title: 'Title', field: 'title', headerMenu: hide },
      { title: 'Year', field: 'year', sorter: 'number', hozAlign: 'right', headerMenu: hide },
      { title: 'Price', field: 'price', sorter: 'number', hozAlign: 'right', formatter: 'money', formatterParams: { symbol: '€ ' }, headerMenu: hide },
      { title: 'Stock', field: 'stock', sorter: 'number', hozAlign: 'right', headerMenu: hide },
    ],
  });
}
