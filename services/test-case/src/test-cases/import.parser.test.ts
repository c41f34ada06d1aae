import { ImportFileError, MAX_IMPORT_CASES, parseImportFile, parseStepCell, type ImportRow } from './import.parser.js';
import { STEP_ACTIONS } from './steps.js';

const ACTIONS = Object.keys(STEP_ACTIONS).join(', ');

const HEADER = 'Name,Description,Step 1,Step 2,Step 3';

const parseCsv = (text: string) => parseImportFile(Buffer.from(text, 'utf8'), { filename: 'cases.csv' });
const parseJson = (value: unknown) => parseImportFile(Buffer.from(JSON.stringify(value), 'utf8'), { filename: 'cases.json' });

/** Runs `fn`, expects an ImportFileError and returns it for assertions. */
function fileError(fn: () => unknown): ImportFileError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ImportFileError) return e;
    throw e;
  }
  throw new Error('expected an ImportFileError');
}

const errors = (rows: ImportRow[]) => rows.map((r) => (r.ok ? null : r.error));

describe('parseImportFile: file format', () => {
  const csvText = `${HEADER}\nLogin,,navigate:/login`;
  const jsonText = JSON.stringify([{ name: 'Login', steps: [{ action: 'navigate', value: '/login' }] }]);

  it('takes the format from the file extension, in any case, before the mimetype', () => {
    expect(parseImportFile(Buffer.from(csvText), { filename: 'Cases.CSV', mimetype: 'application/json' }).format).toBe('csv');
    expect(parseImportFile(Buffer.from(jsonText), { filename: 'cases.Json', mimetype: 'text/csv' }).format).toBe('json');
  });

  it('falls back to the mimetype, ignoring parameters, when the extension says nothing', () => {
    for (const mimetype of ['text/csv; charset=utf-8', 'application/csv', 'application/vnd.ms-excel']) {
      expect(parseImportFile(Buffer.from(csvText), { filename: 'cases.txt', mimetype }).format).toBe('csv');
    }
    expect(parseImportFile(Buffer.from(jsonText), { filename: 'export', mimetype: 'Application/JSON' }).format).toBe('json');
  });

  it('sniffs a leading [ as JSON and anything else as CSV', () => {
    const json = parseImportFile(Buffer.from(`\n  ${jsonText}`), { mimetype: 'application/octet-stream' });
    expect(json.format).toBe('json');
    expect(json.rows).toEqual([{ ok: true, candidate: { row: 1, name: 'Login', steps: [{ action: 'navigate', value: '/login' }] } }]);
    const csv = parseImportFile(Buffer.from(csvText), {});
    expect(csv.format).toBe('csv');
    expect(csv.rows).toEqual([{ ok: true, candidate: { row: 1, name: 'Login', steps: [{ action: 'navigate', value: '/login' }] } }]);
  });

  it('refuses binary content with 415, even under a .csv name', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(csvText, 'utf16le')]);
    const error = fileError(() => parseImportFile(utf16, { filename: 'cases.csv', mimetype: 'text/csv' }));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/binary/);
  });

  it('refuses text that is not UTF-8 with 415', () => {
    const latin1 = Buffer.from(`${HEADER}\nCaf\u00e9,,navigate:/`, 'latin1');
    const error = fileError(() => parseImportFile(latin1, { filename: 'cases.csv' }));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/UTF-8/);
  });

  it('strips a UTF-8 byte order mark before reading the header or the JSON', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const csv = parseImportFile(Buffer.concat([bom, Buffer.from(csvText)]), { filename: 'cases.csv' });
    expect(csv.rows).toEqual([{ ok: true, candidate: { row: 1, name: 'Login', steps: [{ action: 'navigate', value: '/login' }] } }]);
    const json = parseImportFile(Buffer.concat([bom, Buffer.from(jsonText)]), {});
    expect(json.format).toBe('json');
    expect(json.rows[0]?.ok).toBe(true);
  });
});

describe('parseImportFile: CSV header', () => {
  it('accepts the header in any case and with spaces around the cells', () => {
    const { rows } = parseCsv(' name ,DESCRIPTION, step 1 ,STEP 2\nLogin,Signs in,navigate:/login,click:#go');
    expect(rows).toEqual([
      {
        ok: true,
        candidate: {
          row: 1,
          name: 'Login',
          description: 'Signs in',
          steps: [
            { action: 'navigate', value: '/login' },
            { action: 'click', selector: '#go' },
          ],
        },
      },
    ]);
  });

  it.each([
    ['Title,Description,Step 1', 'CSV header column 1 is "Title"; expected "Name"'],
    ['Name,Step 1,Step 2', 'CSV header column 2 is "Step 1"; expected "Description"'],
    ['Name,Description,Steps', 'CSV header column 3 is "Steps"; expected "Step 1"'],
    ['Name,Description,Step 1,Step 3', 'CSV header column 4 is "Step 3"; expected "Step 2"'],
    ['Name,Description,Step 1,,', 'CSV header column 4 is empty; expected "Step 2"'],
    ['Login,,navigate:/login', 'CSV header column 1 is "Login"; expected "Name"'],
  ])('refuses the header %j with 400 naming the bad cell', (header, message) => {
    const error = fileError(() => parseCsv(`${header}\nLogin,,navigate:/login`));
    expect(error.status).toBe(400);
    expect(error.message).toContain(message);
  });

  it('refuses a header without Step columns and an empty file with 400', () => {
    const noSteps = fileError(() => parseCsv('Name,Description\nLogin,'));
    expect(noSteps.status).toBe(400);
    expect(noSteps.message).toMatch(/at least one Step column/);
    const empty = fileError(() => parseCsv(' \n\n'));
    expect(empty.status).toBe(400);
    expect(empty.message).toMatch(/empty/);
  });

  it('returns no rows for a file with only the header', () => {
    expect(parseCsv(`${HEADER}\n`)).toEqual({ format: 'csv', rows: [] });
  });
});

describe('parseImportFile: CSV rows', () => {
  it('numbers test cases from 1 after the header and skips blank lines', () => {
    const { rows } = parseCsv(`${HEADER}\nFirst,,navigate:/a\n\n , ,\nSecond,,navigate:/b\n`);
    expect(rows.map((r) => (r.ok ? [r.candidate.row, r.candidate.name] : r.error))).toEqual([
      [1, 'First'],
      [2, 'Second'],
    ]);
  });

  it('skips empty step cells and keeps the steps in column order', () => {
    const { rows } = parseCsv(`${HEADER}\nGaps,,,click:#a,  \nShort,,screenshot\nFull,,click:#1,click:#2,click:#3`);
    expect(rows.map((r) => (r.ok ? r.candidate.steps : r.error))).toEqual([
      [{ action: 'click', selector: '#a' }],
      [{ action: 'screenshot' }],
      [
        { action: 'click', selector: '#1' },
        { action: 'click', selector: '#2' },
        { action: 'click', selector: '#3' },
      ],
    ]);
  });

  it('trims the name, keeps the description as written and omits an empty one', () => {
    const { rows } = parseCsv(`${HEADER}\n  Login  ,  Signs in ,navigate:/\nLogout,   ,navigate:/`);
    expect(rows).toEqual([
      { ok: true, candidate: { row: 1, name: 'Login', description: '  Signs in ', steps: [{ action: 'navigate', value: '/' }] } },
      { ok: true, candidate: { row: 2, name: 'Logout', steps: [{ action: 'navigate', value: '/' }] } },
    ]);
  });

  it('reports invalid rows and still returns the valid ones', () => {
    const long = 'x'.repeat(201);
    const { rows } = parseCsv(
      [
        HEADER,
        'Good,,navigate:/',
        ',,navigate:/',
        `${long},,navigate:/`,
        `Long description,${'d'.repeat(5001)},navigate:/`,
        'No steps,,,,',
        'Good too,,click:#b',
      ].join('\n'),
    );
    expect(rows).toEqual([
      { ok: true, candidate: { row: 1, name: 'Good', steps: [{ action: 'navigate', value: '/' }] } },
      { ok: false, row: 2, name: null, error: 'row 2: name is required' },
      { ok: false, row: 3, name: long, error: 'row 3: name must be at most 200 characters' },
      { ok: false, row: 4, name: 'Long description', error: 'row 4: description must be at most 5000 characters' },
      { ok: false, row: 5, name: 'No steps', error: 'row 5: steps must contain at least 1 step' },
      { ok: true, candidate: { row: 6, name: 'Good too', steps: [{ action: 'click', selector: '#b' }] } },
    ]);
  });

  it('names the row and the Step column of a step cell that does not parse', () => {
    const { rows } = parseCsv(`${HEADER}\nA,,navigate:/\nB,,navigate:/\nC,,navigate:/,fill:#email\nD,,,clik:#a`);
    expect(errors(rows)).toEqual([
      null,
      null,
      'row 3: step 2: "fill" needs a value after the selector',
      `row 4: step 2: unknown action "clik"; use one of ${ACTIONS}`,
    ]);
  });

  it('turns validateSteps problems into sentences about the Step column', () => {
    const { rows } = parseCsv(`${HEADER}\nA,,,click:   ,wait:#spinner:400000\nB,,navigate:,type:#q:`);
    expect(errors(rows)).toEqual([
      'row 1: step 2: selector must not be empty for action "click"; step 3: timeout must be an integer number of milliseconds from 1 to 300000',
      'row 2: step 1: value must not be empty for action "navigate"; step 2: value must not be empty for action "type"',
    ]);
  });

  it('lists the first 3 problems of a row and counts the rest', () => {
    const { rows } = parseCsv('Name,Description,Step 1,Step 2,Step 3,Step 4\n,,click,hover,check,uncheck');
    expect(rows).toEqual([
      {
        ok: false,
        row: 1,
        name: null,
        error:
          'row 1: name is required; step 1: "click" needs a selector after a colon: click:<selector>; ' +
          'step 2: "hover" needs a selector after a colon: hover:<selector>; and 2 more',
      },
    ]);
  });

  it('refuses a row with more cells than the header, which is usually an unquoted comma', () => {
    const { rows } = parseCsv(`Name,Description,Step 1\nPrice,,fill:#price:1,000\nOk,,navigate:/`);
    expect(rows).toEqual([
      { ok: false, row: 1, name: 'Price', error: 'row 1: has 4 cells but the header has 3 columns; quote cells that contain commas' },
      { ok: true, candidate: { row: 2, name: 'Ok', steps: [{ action: 'navigate', value: '/' }] } },
    ]);
  });

  it('enforces the step limit of validateSteps on a row', () => {
    const header = ['Name', 'Description', ...Array.from({ length: 201 }, (_, i) => `Step ${i + 1}`)].join(',');
    const row = ['Many', '', ...Array.from({ length: 201 }, (_, i) => `click:#b${i}`)].join(',');
    expect(errors(parseCsv(`${header}\n${row}`).rows)).toEqual(['row 1: steps must contain at most 200 steps']);
  });
});

describe('parseImportFile: CSV quoting', () => {
  it('reads quoted commas and colons, doubled quotes and a multi-line value', () => {
    const text = [
      HEADER,
      '"Search, then filter","Uses ""quotes"", commas: and colons","fill:#q:shoes, red: size 9","assert_text:h1:Say ""hi""","fill:textarea:line 1',
      'line 2"',
    ].join('\n');
    expect(parseCsv(text).rows).toEqual([
      {
        ok: true,
        candidate: {
          row: 1,
          name: 'Search, then filter',
          description: 'Uses "quotes", commas: and colons',
          steps: [
            { action: 'fill', selector: '#q', value: 'shoes, red: size 9' },
            { action: 'assert_text', selector: 'h1', value: 'Say "hi"' },
            { action: 'fill', selector: 'textarea', value: 'line 1\nline 2' },
          ],
        },
      },
    ]);
  });

  it('reads CRLF line endings without leaving carriage returns in the cells', () => {
    const text = `${HEADER}\r\nOne,First,navigate:/a,"fill:#note:x\r\ny"\r\nTwo,,assert_value:#n:42\r\n`;
    expect(parseCsv(text).rows).toEqual([
      {
        ok: true,
        candidate: {
          row: 1,
          name: 'One',
          description: 'First',
          steps: [
            { action: 'navigate', value: '/a' },
            { action: 'fill', selector: '#note', value: 'x\r\ny' },
          ],
        },
      },
      { ok: true, candidate: { row: 2, name: 'Two', steps: [{ action: 'assert_value', selector: '#n', value: '42' }] } },
    ]);
  });

  it('refuses an unterminated quote with 400 naming its line', () => {
    const error = fileError(() => parseCsv(`${HEADER}\n\nA,,navigate:/\nB,"never closed,navigate:/\nC,,navigate:/`));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^CSV line 4: a quoted cell is never closed \(MissingQuotes\)/);
    expect(error.details).toEqual({ line: 4, code: 'MissingQuotes' });
  });

  it('refuses text after a closing quote with 400 naming its line', () => {
    const error = fileError(() => parseCsv(`${HEADER}\r\nA,"quoted"tail,navigate:/`));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^CSV line 2: a quoted cell has text after its closing quote \(InvalidQuotes\)/);
  });
});

describe('parseStepCell', () => {
  it('takes the whole rest of a navigate cell as the value', () => {
    expect(parseStepCell('navigate:https://x.test/a?b=c:d')).toEqual({ step: { action: 'navigate', value: 'https://x.test/a?b=c:d' } });
    expect(parseStepCell('navigate: /login ')).toEqual({ step: { action: 'navigate', value: ' /login ' } });
  });

  it('trims and lower-cases the action', () => {
    expect(parseStepCell('  Click :#go')).toEqual({ step: { action: 'click', selector: '#go' } });
    expect(parseStepCell(' ASSERT_VISIBLE:.toast')).toEqual({ step: { action: 'assert_visible', selector: '.toast' } });
  });

  it('takes the rest of a selector-only cell verbatim, trimmed, colons and backslashes included', () => {
    expect(parseStepCell('click:a:hover')).toEqual({ step: { action: 'click', selector: 'a:hover' } });
    expect(parseStepCell('hover: li:nth-child(2) ')).toEqual({ step: { action: 'hover', selector: 'li:nth-child(2)' } });
    expect(parseStepCell('check:.sm\\:hidden')).toEqual({ step: { action: 'check', selector: '.sm\\:hidden' } });
  });

  it('reads screenshot with or without a selector', () => {
    expect(parseStepCell('screenshot')).toEqual({ step: { action: 'screenshot' } });
    expect(parseStepCell('screenshot:  ')).toEqual({ step: { action: 'screenshot' } });
    expect(parseStepCell('screenshot:#hero')).toEqual({ step: { action: 'screenshot', selector: '#hero' } });
  });

  it('ends the selector at the first unescaped colon and keeps the value verbatim', () => {
    expect(parseStepCell('assert_text:#total:Total: $20')).toEqual({ step: { action: 'assert_text', selector: '#total', value: 'Total: $20' } });
    expect(parseStepCell('fill:input\\:focus:12:30')).toEqual({ step: { action: 'fill', selector: 'input:focus', value: '12:30' } });
    expect(parseStepCell('type: #search : a\\:b, "c" ')).toEqual({ step: { action: 'type', selector: '#search', value: ' a\\:b, "c" ' } });
    expect(parseStepCell('select:#size:')).toEqual({ step: { action: 'select', selector: '#size', value: '' } });
  });

  it('reads the added actions: selector-only, selector and value, URL, history and press with or without a selector', () => {
    expect(parseStepCell('dblclick:#todo-list li label')).toEqual({ step: { action: 'dblclick', selector: '#todo-list li label' } });
    expect(parseStepCell('assert_hidden:#clear-completed')).toEqual({ step: { action: 'assert_hidden', selector: '#clear-completed' } });
    expect(parseStepCell('assert_count:#todo-list li:3')).toEqual({ step: { action: 'assert_count', selector: '#todo-list li', value: '3' } });
    expect(parseStepCell('assert_attribute:#filters a[href="#/active"]:class~=selected')).toEqual({
      step: { action: 'assert_attribute', selector: '#filters a[href="#/active"]', value: 'class~=selected' },
    });
    expect(parseStepCell('assert_url:#/active')).toEqual({ step: { action: 'assert_url', value: '#/active' } });
    expect(parseStepCell('assert_url:/todos#\\/(active)?$/')).toEqual({ step: { action: 'assert_url', value: '/todos#\\/(active)?$/' } });
    expect(parseStepCell('assert_url:http://shop.test/a')).toEqual({ step: { action: 'assert_url', value: 'http://shop.test/a' } });
    for (const action of ['go_back', 'go_forward', 'reload']) {
      expect(parseStepCell(action)).toEqual({ step: { action } });
      expect(parseStepCell(`${action}: `)).toEqual({ step: { action } });
    }
    expect(parseStepCell('press:Enter')).toEqual({ step: { action: 'press', value: 'Enter' } });
    expect(parseStepCell('press: Control+A ')).toEqual({ step: { action: 'press', value: 'Control+A' } });
    expect(parseStepCell('press:#new-todo:Enter')).toEqual({ step: { action: 'press', selector: '#new-todo', value: 'Enter' } });
    expect(parseStepCell('press:li.editing input\\:focus:Escape')).toEqual({ step: { action: 'press', selector: 'li.editing input:focus', value: 'Escape' } });
    expect(parseStepCell('press:\\:')).toEqual({ step: { action: 'press', value: ':' } });
    expect(parseStepCell('upload:#file:3f0c8a52-5d3e-4b8e-9a41-0d6f1c2b7e90')).toEqual({ step: { action: 'upload', selector: '#file', value: '3f0c8a52-5d3e-4b8e-9a41-0d6f1c2b7e90' } });
    expect(parseStepCell('drag:#card-1:li:nth-child(2)')).toEqual({ step: { action: 'drag', selector: '#card-1', value: 'li:nth-child(2)' } });
    // An empty expectation: the input is empty.
    expect(parseStepCell('assert_value:#new-todo:')).toEqual({ step: { action: 'assert_value', selector: '#new-todo', value: '' } });
  });

  it.each([
    ['go_back:/home', '"go_back" takes no parameters: write just go_back'],
    ['reload:#x', '"reload" takes no parameters: write just reload'],
    ['press', '"press" needs a key: press:<key> or press:<selector>:<key>'],
    ['assert_url', '"assert_url" needs a value after a colon: assert_url:<value>'],
    ['assert_count:#list li', '"assert_count" needs a value after the selector'],
  ])('refuses %j', (cell, error) => {
    expect(parseStepCell(cell)).toEqual({ error });
  });

  it('checks the added actions’ values like the API does, naming the Step column', () => {
    const { rows } = parseCsv(
      `${HEADER}\nA,,assert_count:li:three,press:#x:Entr,assert_attribute:a:my class=x\nB,,upload:#file:photo.png,assert_url:/[/,drag:#a:\nC,,navigate:/todos,assert_value:#new-todo:,assert_text:#count:`,
    );
    expect(errors(rows)).toEqual([
      'row 1: step 1: value must be a whole number of elements from 0 to 100000; step 2: value "Entr" is not a key: use a key name (Enter, Escape, Tab, Backspace, ArrowDown, F2, ...) or a single character, with modifiers as in Control+A; step 3: value must be name=expected, name=/regex/, name~=word or a bare attribute name (e.g. class~=selected)',
      'row 2: step 1: value must be the id of an artifact uploaded with POST /api/v1/artifacts; step 2: value is not a valid regular expression: missing ]: [; step 3: value must not be empty for action "drag"',
      null,
    ]);
  });

  it('reads \\\\ as a backslash in a selector and keeps any other backslash', () => {
    expect(parseStepCell('fill:a\\\\:b')).toEqual({ step: { action: 'fill', selector: 'a\\', value: 'b' } });
    expect(parseStepCell('fill:#a\\.b:x')).toEqual({ step: { action: 'fill', selector: '#a\\.b', value: 'x' } });
  });

  it('reads the wait timeout after the last colon and the selector before it', () => {
    expect(parseStepCell('wait:#results:5000')).toEqual({ step: { action: 'wait', selector: '#results', timeout: 5000 } });
    expect(parseStepCell('wait:a:hover:250')).toEqual({ step: { action: 'wait', selector: 'a:hover', timeout: 250 } });
    expect(parseStepCell('wait:a\\:b\\\\:c: 10 ')).toEqual({ step: { action: 'wait', selector: 'a:b\\:c', timeout: 10 } });
  });

  it.each([
    ['wait:#x:5s', '"wait" timeout must be a positive whole number of milliseconds, not "5s"'],
    ['wait:#x:0', '"wait" timeout must be a positive whole number of milliseconds, not "0"'],
    ['wait:#x:-1', '"wait" timeout must be a positive whole number of milliseconds, not "-1"'],
    ['wait:#x:1.5', '"wait" timeout must be a positive whole number of milliseconds, not "1.5"'],
    ['wait:#x', '"wait" needs a timeout in milliseconds after the selector: wait:<selector>:<milliseconds>'],
    ['wait:#x\\:500', '"wait" needs a timeout in milliseconds after the selector: wait:<selector>:<milliseconds>'],
    ['wait', '"wait" needs a selector and a timeout: wait:<selector>:<milliseconds>'],
  ])('refuses %j', (cell, error) => {
    expect(parseStepCell(cell)).toEqual({ error });
  });

  it.each([
    ['navigate', '"navigate" needs a value after a colon: navigate:<value>'],
    ['click', '"click" needs a selector after a colon: click:<selector>'],
    ['fill', '"fill" needs a selector and a value: fill:<selector>:<value>'],
    ['fill:#email', '"fill" needs a value after the selector'],
    ['assert_text:h1\\:first', '"assert_text" needs a value after the selector'],
    [':#a', 'has no action before the first colon'],
    ['  ', 'is empty'],
    ['double_click:#a', `unknown action "double_click"; use one of ${ACTIONS}`],
    ['constructor:#a', `unknown action "constructor"; use one of ${ACTIONS}`],
  ])('refuses %j', (cell, error) => {
    expect(parseStepCell(cell)).toEqual({ error });
  });
});

describe('parseImportFile: JSON', () => {
  it('returns each item as a candidate with its description, tags and steps', () => {
    const steps = [
      { action: 'navigate', value: '/login', description: 'open' },
      { action: 'wait', selector: '#form', timeout: 1000 },
    ];
    const { format, rows } = parseJson([
      { name: '  Login ', description: 'Signs in', tags: ['smoke', 'auth'], steps },
      { name: 'Blank description', description: '', tags: [], steps: [{ action: 'screenshot' }] },
    ]);
    expect(format).toBe('json');
    expect(rows).toEqual([
      { ok: true, candidate: { row: 1, name: 'Login', description: 'Signs in', tags: ['smoke', 'auth'], steps } },
      { ok: true, candidate: { row: 2, name: 'Blank description', tags: [], steps: [{ action: 'screenshot' }] } },
    ]);
  });

  it('re-imports an exported test case, ignoring the fields import does not set', () => {
    const exported = {
      id: 'tc_1',
      project_id: 'p_1',
      name: 'Checkout',
      description: null,
      status: 'active',
      tags: null,
      steps: [{ step_id: 's1', action: 'click', selector: '#buy' }],
      created_at: '2026-11-22T10:00:00Z',
    };
    expect(parseJson([exported]).rows).toEqual([
      { ok: true, candidate: { row: 1, name: 'Checkout', steps: [{ step_id: 's1', action: 'click', selector: '#buy' }] } },
    ]);
  });

  it('reports each invalid item by its position and keeps the valid ones', () => {
    const ok = { name: 'Ok', steps: [{ action: 'screenshot' }] };
    const { rows } = parseJson([
      ok,
      { name: 'Click', steps: [{ action: 'navigate', value: '/' }, { action: 'click' }] },
      'not an object',
      { steps: [{ action: 'screenshot' }] },
      { name: 42, description: 7, steps: [{ action: 'screenshot' }] },
      { name: 'Tags', tags: 'smoke', steps: [{ action: 'screenshot' }] },
      { name: 'Many tags', tags: Array.from({ length: 51 }, (_, i) => `t${i}`), steps: [{ action: 'screenshot' }] },
      { name: 'Long tag', tags: ['x'.repeat(51)], steps: [{ action: 'screenshot' }] },
      { name: 'No steps' },
      { name: 'Bad steps', steps: [{ action: 'fly' }, { action: 'fill', selector: '#a', value: 'b', extra: 1 }, 'x', { action: 'wait', selector: '#s' }] },
      { name: 'Nul', steps: [{ action: 'fill', selector: '#a', value: 'a\u0000b' }] },
    ]);
    const tagsError = 'tags must be an array of at most 50 strings of at most 50 characters';
    expect(rows).toEqual([
      { ok: true, candidate: { row: 1, name: 'Ok', steps: [{ action: 'screenshot' }] } },
      { ok: false, row: 2, name: 'Click', error: 'row 2: steps[1].selector is required for action "click"' },
      { ok: false, row: 3, name: null, error: 'row 3: must be an object {name, description?, steps}' },
      { ok: false, row: 4, name: null, error: 'row 4: name is required' },
      { ok: false, row: 5, name: null, error: 'row 5: name must be a string; description must be a string' },
      { ok: false, row: 6, name: 'Tags', error: `row 6: ${tagsError}` },
      { ok: false, row: 7, name: 'Many tags', error: `row 7: ${tagsError}` },
      { ok: false, row: 8, name: 'Long tag', error: `row 8: ${tagsError}` },
      { ok: false, row: 9, name: 'No steps', error: 'row 9: steps must be an array of steps' },
      {
        ok: false,
        row: 10,
        name: 'Bad steps',
        error:
          `row 10: steps[0].action must be one of ${ACTIONS}; ` +
          'steps[1].extra is not a known step field; steps[2] must be an object; and 1 more',
      },
      { ok: false, row: 11, name: 'Nul', error: 'row 11: steps[0].value contains a NUL character or an unpaired surrogate, which cannot be stored' },
    ]);
  });

  it('refuses a root that is not an array with 400', () => {
    const error = fileError(() => parseJson({ name: 'Login', steps: [] }));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/must be a JSON array of test cases/);
  });

  it("refuses malformed JSON with 400 and the parser's message", () => {
    const error = fileError(() => parseImportFile(Buffer.from('[{"name": "Login",]'), { filename: 'cases.json' }));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^malformed JSON: .+/);
    let parserMessage = '';
    try {
      JSON.parse('[{"name": "Login",]');
    } catch (e) {
      parserMessage = (e as Error).message;
    }
    expect(error.message).toBe(`malformed JSON: ${parserMessage}`);
  });

  it('returns no rows for an empty array', () => {
    expect(parseJson([])).toEqual({ format: 'json', rows: [] });
  });
});

describe('parseImportFile: size', () => {
  it(`refuses more than ${MAX_IMPORT_CASES} CSV rows with 413 before reading any row`, () => {
    // Every row is invalid: a 413 shows the count came first.
    const text = `${HEADER}\n${'x,,bogus\n'.repeat(MAX_IMPORT_CASES + 1)}`;
    const error = fileError(() => parseCsv(text));
    expect(error.status).toBe(413);
    expect(error.details).toEqual({ limit: MAX_IMPORT_CASES, found: MAX_IMPORT_CASES + 1 });
  });

  it(`refuses more than ${MAX_IMPORT_CASES} JSON items with 413`, () => {
    const error = fileError(() => parseJson(Array.from({ length: MAX_IMPORT_CASES + 1 }, () => 0)));
    expect(error.status).toBe(413);
    expect(error.message).toMatch(/10001 test cases; at most 10000/);
  });

  it(`parses a generated CSV of ${MAX_IMPORT_CASES} test cases of 6 steps`, () => {
    const lines = ['Name,Description,Step 1,Step 2,Step 3,Step 4,Step 5,Step 6'];
    for (let i = 1; i <= MAX_IMPORT_CASES; i++) {
      lines.push(
        `Checkout ${i},"Buys item ${i}, then checks the total",navigate:/shop?item=${i},click:#add-${i},` +
          `fill:#email:user${i}@example.test,select:#size:M,wait:.cart:5000,"assert_text:#total:Total: $${i}"`,
      );
    }
    const { format, rows } = parseCsv(lines.join('\r\n'));
    expect(format).toBe('csv');
    expect(rows).toHaveLength(MAX_IMPORT_CASES);
    expect(rows.filter((r) => r.ok)).toHaveLength(MAX_IMPORT_CASES);
    expect(rows[MAX_IMPORT_CASES - 1]).toEqual({
      ok: true,
      candidate: {
        row: MAX_IMPORT_CASES,
        name: `Checkout ${MAX_IMPORT_CASES}`,
        description: `Buys item ${MAX_IMPORT_CASES}, then checks the total`,
        steps: [
          { action: 'navigate', value: `/shop?item=${MAX_IMPORT_CASES}` },
          { action: 'click', selector: `#add-${MAX_IMPORT_CASES}` },
          { action: 'fill', selector: '#email', value: `user${MAX_IMPORT_CASES}@example.test` },
          { action: 'select', selector: '#size', value: 'M' },
          { action: 'wait', selector: '.cart', timeout: 5000 },
          { action: 'assert_text', selector: '#total', value: `Total: $${MAX_IMPORT_CASES}` },
        ],
      },
    });
  });
});

describe('parseStepCell: request and assert_accessible', () => {
  it('reads a request step’s JSON after the colon, and says what it expects otherwise', () => {
    const call = { request: { method: 'POST', url: '/api/items', body: { name: 'a:b' } }, expect: ['status=201'], save_as: { id: '$.id' } };
    expect(parseStepCell(`request:${JSON.stringify(call)}`)).toEqual({ step: { action: 'request', ...call } });
    expect(parseStepCell('request')).toEqual({ error: expect.stringMatching(/^"request" needs a JSON object after the colon/) });
    expect(parseStepCell('request:GET /x')).toEqual({ error: expect.stringMatching(/^"request" needs a JSON object/) });
    expect(parseStepCell('request:{"url": "/x", "method": "GET"}')).toEqual({ error: expect.stringMatching(/unknown field "url"/) });
  });

  it('reads assert_accessible with an optional selector and value', () => {
    expect(parseStepCell('assert_accessible')).toEqual({ step: { action: 'assert_accessible' } });
    expect(parseStepCell('assert_accessible:main')).toEqual({ step: { action: 'assert_accessible', selector: 'main' } });
    expect(parseStepCell('assert_accessible:#form:wcag2aa serious')).toEqual({ step: { action: 'assert_accessible', selector: '#form', value: 'wcag2aa serious' } });
    expect(parseStepCell('assert_accessible::best-practice')).toEqual({ step: { action: 'assert_accessible', value: 'best-practice' } });
  });
});
