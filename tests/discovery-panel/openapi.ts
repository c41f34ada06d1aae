// The API description of ours that the two API documentation apps of the
// panel show (Redoc, Swagger UI), and the small API behind it that Swagger
// UI's "Try it out" calls.
import type http from 'node:http';
import { bodyOf } from './support.js';

const book = { type: 'object', properties: { id: { type: 'integer' }, title: { type: 'string' }, author: { type: 'string' } }, required: ['title', 'author'] };

export const BOOKSHOP_API = {
  openapi: '3.0.3',
  info: { title: 'Bookshop API', version: '1.4.0', description: 'Books, authors and orders of a small bookshop.' },
  servers: [{ url: '/api' }],
  tags: [
    { name: 'Books', description: 'The catalogue' },
    { name: 'Authors', description: 'People who wrote the books' },
    { name: 'Orders', description: 'Orders placed by customers' },
  ],
  components: { securitySchemes: { basicAuth: { type: 'http', scheme: 'basic' } }, schemas: { Book: book } },
  paths: {
    '/books': {
      get: { tags: ['Books'], operationId: 'listBooks', summary: 'List books', parameters: [{ name: 'q', in: 'query', schema: { type: 'string' }, description: 'Words in the title' }], responses: { 200: { description: 'The books', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Book' } } } } } } },
      post: { tags: ['Books'], operationId: 'addBook', summary: 'Add a book', security: [{ basicAuth: [] }], requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Book' } } } }, responses: { 201: { description: 'Added' } } },
    },
    '/books/{bookId}': {
      get: { tags: ['Books'], operationId: 'getBook', summary: 'Get a book', parameters: [{ name: 'bookId', in: 'path', required: true, schema: { type: 'integer' } }], responses: { 200: { description: 'The book', content: { 'application/json': { schema: { $ref: '#/components/schemas/Book' } } } }, 404: { description: 'No such book' } } },
    },
    '/authors': { get: { tags: ['Authors'], operationId: 'listAuthors', summary: 'List authors', responses: { 200: { description: 'The authors' } } } },
    '/orders': { post: { tags: ['Orders'], operationId: 'placeOrder', summary: 'Place an order', security: [{ basicAuth: [] }], responses: { 201: { description: 'Placed' } } } },
  },
};

const BOOKS = [
  { id: 1, title: 'The Quiet Harbour', author: 'Mara Lind' },
  { id: 2, title: 'Salt and Cedar', author: 'Jon Ekberg' },
  { id: 3, title: 'Northern Lights', author: 'Mara Lind' },
];

/** Answers /openapi.json and the API's own paths; false for anything else. */
export async function handleBookshop(req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://x');
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    return true;
  };
  if (url.pathname === '/openapi.json') return json(200, BOOKSHOP_API);
  if (!url.pathname.startsWith('/api/')) return false;
  if (req.method !== 'GET') await bodyOf(req);
  if (url.pathname === '/api/books' && req.method === 'GET') {
    const q = (url.searchParams.get('q') ?? '').toLowerCase();
    return json(200, BOOKS.filter((b) => b.title.toLowerCase().includes(q)));
  }
  const one = /^\/api\/books\/(\d+)$/.exec(url.pathname);
  if (one && req.method === 'GET') {
    const b = BOOKS.find((x) => x.id === Number(one[1]));
    return b ? json(200, b) : json(404, { error: 'No such book' });
  }
  if (url.pathname === '/api/authors') return json(200, [...new Set(BOOKS.map((b) => b.author))].map((name) => ({ name })));
  if (req.method === 'POST') return req.headers.authorization ? json(201, { ok: true }) : json(401, { error: 'Sign in first' });
  return json(404, { error: 'Not found' });
}
