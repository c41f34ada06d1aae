/**
 * Helpers that run inside the crawled page, as plain JavaScript source that
 * the crawler's page functions start with (`new Function(IN_PAGE + body)`),
 * so no transpiler helper leaks into the page.
 *
 * - `selectorOf(el)`: a stable, unique selector. In order: a test id, an id
 *   that does not look generated (`:r1:`, `mui-42`, `ember123`), the element's
 *   name / href / action attribute (what the app keys on), its role and
 *   accessible name (`role=button[name="Sign in"s]`, what Playwright's
 *   getByRole matches), its aria-label, then any of those scoped to the
 *   nearest ancestor with a stable id; positional CSS last.
 * - `roleOf(el)`, `nameOf(el)`: the element's ARIA role (explicit or implicit
 *   for the common tags) and accessible name (aria-labelledby, aria-label, a
 *   label, the text, alt or title), as far as a crawler needs them.
 * - `labelOf(el)`, `visible(el)`, `textOf(el)`.
 */
export const IN_PAGE = String.raw`
  const q = (s) => { try { return document.querySelectorAll(s).length; } catch { return 0; } };
  const css = (v) => v.replace(/["\\]/g, '\\$&');
  const IDENT = /^[A-Za-z][A-Za-z0-9_-]*$/;
  const GENERATED_ID = /(^|[-_:])(mui|radix|headlessui|react-select|ember|ext-gen|rc-tabs|downshift|aria|id)[-_:]?\d|\d{3,}|^[a-f0-9]{8,}$/i;
  const stableId = (el) => !!el.id && IDENT.test(el.id) && !GENERATED_ID.test(el.id) && q('#' + el.id) === 1;
  const visible = (el) => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length) && getComputedStyle(el).visibility !== 'hidden';
  const textOf = (el) => (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim();
  const positional = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && e !== document.body; e = e.parentElement) {
      if (stableId(e)) { parts.unshift('#' + e.id); break; }
      const same = Array.from(e.parentElement ? e.parentElement.children : []).filter((c) => c.tagName === e.tagName);
      parts.unshift(e.tagName.toLowerCase() + (same.length > 1 ? ':nth-of-type(' + (same.indexOf(e) + 1) + ')' : ''));
    }
    return parts.join(' > ');
  };
  const INPUT_ROLES = { button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox', radio: 'radio', range: 'slider', search: 'searchbox', email: 'textbox', tel: 'textbox', text: 'textbox', url: 'textbox', number: 'spinbutton', password: '' };
  const roleOf = (el) => {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit) return explicit;
    const tag = el.tagName.toLowerCase();
    if (tag === 'a' || tag === 'area') return el.hasAttribute('href') ? 'link' : '';
    if (tag === 'button') return 'button';
    if (tag === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'input') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (type === 'text' || type === 'search' || type === 'email' || type === 'tel' || type === 'url') { if (el.hasAttribute('list')) return 'combobox'; }
      return INPUT_ROLES[type] === undefined ? 'textbox' : INPUT_ROLES[type];
    }
    if (/^h[1-6]$/.test(tag)) return 'heading';
    if (tag === 'dialog') return 'dialog';
    if (tag === 'nav') return 'navigation';
    if (tag === 'li') return el.closest('ul, ol') ? 'listitem' : '';
    return '';
  };
  const labelOf = (el) => {
    if (el.id) { const l = document.querySelector('label[for="' + css(el.id) + '"]'); if (l) return textOf(l); }
    const wrap = el.closest('label');
    if (wrap) {
      const clone = wrap.cloneNode(true);
      for (const c of clone.querySelectorAll('input, select, textarea')) c.remove();
      const t = (clone.textContent || '').replace(/\s+/g, ' ').trim();
      if (t) return t;
    }
    return el.getAttribute('aria-label') || el.getAttribute('placeholder') || '';
  };
  const nameOf = (el) => {
    const by = el.getAttribute('aria-labelledby');
    if (by) { const t = by.split(/\s+/).map((id) => { const r = document.getElementById(id); return r ? textOf(r) : ''; }).join(' ').trim(); if (t) return t; }
    const aria = (el.getAttribute('aria-label') || '').trim();
    if (aria) return aria;
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' || tag === 'select' || tag === 'textarea') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (['submit', 'button', 'reset'].includes(type)) return el.value || '';
      const l = labelOf(el);
      return l && l !== el.getAttribute('placeholder') ? l : (el.getAttribute('title') || '');
    }
    const text = textOf(el);
    if (text) return text;
    const img = el.querySelector('img[alt], svg title');
    if (img) return (img.getAttribute('alt') || img.textContent || '').trim();
    return (el.getAttribute('title') || '').trim();
  };
  const ROLE_SCOPE = { button: 'button, input[type=button], input[type=submit], input[type=reset], [role=button]', link: 'a[href], [role=link]', textbox: 'input:not([type]), input[type=text], input[type=email], input[type=tel], input[type=url], textarea, [role=textbox]', searchbox: 'input[type=search], [role=searchbox]', combobox: 'select, [role=combobox], input[list]', tab: '[role=tab]', menuitem: '[role=menuitem]', option: '[role=option], option', checkbox: 'input[type=checkbox], [role=checkbox]', heading: 'h1, h2, h3, h4, h5, h6, [role=heading]', dialog: 'dialog, [role=dialog]', listbox: '[role=listbox], select[multiple]' };
  const roleSelector = (el) => {
    const role = roleOf(el);
    const scope = ROLE_SCOPE[role];
    if (!scope) return undefined;
    const name = nameOf(el);
    if (!name || name.length > 60 || /["\\\n]/.test(name)) return undefined;
    // Headings also by level (Playwright's [level=N]): the page's title and a sidebar's often share a name.
    const level = role === 'heading' ? Number((/^h([1-6])$/i.exec(el.tagName) || [])[1] || el.getAttribute('aria-level') || 0) : 0;
    const levelOf = (h) => Number((/^h([1-6])$/i.exec(h.tagName) || [])[1] || h.getAttribute('aria-level') || 0);
    // Text a style adds (an icon font's ::before) is part of the accessible name a browser computes, not of the text
    // read here: such an element is matched by a name that contains its text, and that must single it out.
    const styled = (e) => [e, ...e.querySelectorAll('*')].slice(0, 20).some((x) => ['::before', '::after'].some((p) => { const c = getComputedStyle(x, p).content; return !!c && c !== 'none' && c !== 'normal' && c !== '""'; }));
    const exact = !styled(el);
    const lower = name.toLowerCase();
    let same = 0;
    for (const other of document.querySelectorAll(scope)) if (roleOf(other) === role && (!level || levelOf(other) === level) && (exact ? nameOf(other) === name : nameOf(other).toLowerCase().includes(lower)) && visible(other)) same++;
    // Playwright's role engine matches a quoted name whole; a name with styled text around it is matched by a pattern.
    const byName = exact ? '[name="' + name + '"s]' : '[name=/' + name.replace(/[.*+?^$(){}|[\]\\/]/g, '\\$&') + '/i]';
    return same === 1 ? 'role=' + role + byName + (level ? '[level=' + level + ']' : '') : undefined;
  };
  const attributeSelectors = (el) => {
    const tag = el.tagName.toLowerCase();
    const out = [];
    const field = tag === 'input' || tag === 'textarea' || tag === 'select';
    for (const attr of field ? ['name', 'placeholder', 'autocomplete', 'aria-label'] : ['name', 'aria-label']) {
      const v = el.getAttribute(attr);
      if (v && !(attr === 'autocomplete' && /^(on|off)$/i.test(v))) out.push(tag + '[' + attr + '="' + css(v) + '"]');
    }
    const type = field ? (el.getAttribute('type') || '').toLowerCase() : '';
    if (type === 'password' || type === 'email' || type === 'search') out.push(tag + '[type="' + type + '"]');
    const href = tag === 'a' ? el.getAttribute('href') : null;
    if (href) out.push('a[href="' + css(href) + '"]');
    const action = tag === 'form' ? el.getAttribute('action') : null;
    if (action) out.push('form[action="' + css(action) + '"]');
    return out;
  };
  const selectorOf = (el) => {
    const testid = el.getAttribute('data-testid');
    if (testid && q('[data-testid="' + css(testid) + '"]') === 1) return '[data-testid="' + css(testid) + '"]';
    if (stableId(el)) return '#' + el.id;
    const candidates = attributeSelectors(el);
    // A field's name, a link's target, a form's action: what the app itself keys on. Then the
    // element as a person finds it (its role and name), then any other attribute.
    for (const c of candidates) if (!/\[aria-label=/.test(c) && q(c) === 1) return c;
    const byRole = visible(el) ? roleSelector(el) : undefined;
    if (byRole) return byRole;
    for (const c of candidates) if (q(c) === 1) return c;
    // Not unique on the page: scoped to the nearest ancestor with a stable id.
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (!stableId(a)) continue;
      for (const c of candidates) if (q('#' + a.id + ' ' + c) === 1) return '#' + a.id + ' ' + c;
      break;
    }
    return positional(el);
  };
  const NOT_FIELDS = ['hidden', 'submit', 'button', 'image', 'reset'];
  const isField = (i) => !NOT_FIELDS.includes((i.getAttribute('type') || '').toLowerCase());
  const fieldInfo = (i) => ({
    tag: i.tagName.toLowerCase(),
    type: (i.getAttribute('type') || (i.tagName === 'INPUT' ? 'text' : i.tagName.toLowerCase())).toLowerCase(),
    name: i.getAttribute('name') || i.id || '',
    selector: selectorOf(i),
    label: labelOf(i).slice(0, 100),
    autocomplete: (i.getAttribute('autocomplete') || '').toLowerCase(),
  });
  const BUTTONS = 'button, input[type=submit], input[type=button], [role=button]';
  const CLOSING = /^(×|✕|x|close|cancel|dismiss|back)$/i;
  // The button that submits a group of fields a script handles: the first after its last field that does not close it.
  const primaryButton = (container, fields) => {
    const last = fields[fields.length - 1];
    // The group's own buttons, else (a section whose only button closes it) those of the next two containers up.
    for (let c = container, up = 0; c && c !== document.body && up < 3; c = c.parentElement, up++) {
      const buttons = Array.from(c.querySelectorAll(BUTTONS)).filter((b) => visible(b) && !CLOSING.test(nameOf(b).trim()));
      const after = buttons.find((b) => last && (last.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING));
      if (after || (up === 0 && buttons[0])) return after || buttons[0];
    }
    return undefined;
  };
  /**
   * The forms under root: real ones, and groups of fields outside any form that a script
   * handles (grouped by the nearest container holding a button), which count as forms when
   * they hold a password field or when \`loose\` (inside an opened dialog).
   */
  // A search form says so: its role (or a search landmark around it), or a field that is a search box by type, role, name, label or placeholder.
  const SEARCH_WORDS = /search|find|query|look ?up/i;
  const searchAffordance = (f, fields) => !!(f.closest && f.closest('[role=search], search')) || fields.some((i) => (i.getAttribute('type') || '').toLowerCase() === 'search' || i.getAttribute('role') === 'searchbox' || /^(q|s|query|search|term|keywords?)$/i.test(i.getAttribute('name') || '') || SEARCH_WORDS.test([labelOf(i), i.getAttribute('placeholder'), i.getAttribute('aria-label'), i.getAttribute('title'), i.getAttribute('aria-labelledby') && document.getElementById(i.getAttribute('aria-labelledby')) ? textOf(document.getElementById(i.getAttribute('aria-labelledby'))) : ''].join(' ')));
  const readForms = (root, loose) => {
    const forms = Array.from(root.querySelectorAll('form')).map((f) => {
      // A submit button a person cannot see (a no-script fallback a script replaces) is no button to press.
      const submit = Array.from(f.querySelectorAll('button[type=submit], input[type=submit], button:not([type])')).find(visible);
      const inputs = Array.from(f.querySelectorAll('input, select, textarea')).filter(isField);
      return {
        selector: selectorOf(f),
        method: (f.getAttribute('method') || 'get').toLowerCase(),
        action: f.getAttribute('action') === null ? '' : f.action,
        fields: inputs.map(fieldInfo),
        submit: submit ? selectorOf(submit) : null,
        ...(inputs.length && !inputs.some(visible) ? { hidden: true } : {}),
        ...(searchAffordance(f, inputs) ? { search: true } : {}),
      };
    });
    const groups = new Map();
    for (const i of root.querySelectorAll('input, select, textarea')) {
      if (i.closest('form') || !isField(i) || !visible(i)) continue;
      let c = i.parentElement;
      while (c && c !== document.body && !c.querySelector(BUTTONS)) c = c.parentElement;
      if (!c || c === document.body) continue;
      if (!groups.has(c)) groups.set(c, []);
      groups.get(c).push(i);
    }
    for (const [c, fields] of groups) {
      if (!loose && !fields.some((f) => (f.getAttribute('type') || '').toLowerCase() === 'password')) continue;
      const submit = primaryButton(c, fields);
      forms.push({ selector: selectorOf(c), method: 'script', action: '', fields: fields.map(fieldInfo), submit: submit ? selectorOf(submit) : null, ...(searchAffordance(c, fields) ? { search: true } : {}) });
    }
    return forms;
  };
`;
