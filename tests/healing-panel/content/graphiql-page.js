/* global window, document, React, ReactDOM, GraphiQL */
// GraphiQL on a page of ours against the Bookshop's GraphQL API (/graphql,
// served by the healing bench's starter): a query to start from, its
// variables, the headers editor on. The same props on every version; React
// 18's root (GraphiQL 1.x renders in it as well).
(function () {
  var query = [
    '# The Bookshop catalogue: press the run button to see the books.',
    'query Catalogue($author: String) {',
    '  books(author: $author) { title year price stock author { name } }',
    '}',
    '',
  ].join('\n');
  function fetcher(params) {
    return fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) }).then(function (r) {
      return r.json();
    });
  }
  var props = { fetcher: fetcher, defaultQuery: query, query: query, variables: '{ "author": "Jane Austen" }', headerEditorEnabled: true, isHeadersEditorEnabled: true };
  var root = document.getElementById('graphiql');
  if (ReactDOM.createRoot) ReactDOM.createRoot(root).render(React.createElement(GraphiQL, props));
  else ReactDOM.render(React.createElement(GraphiQL, props), root);
  window.BOOKSHOP_QUERY = query;
})();
