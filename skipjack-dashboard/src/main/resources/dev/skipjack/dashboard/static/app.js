// Skipjack dashboard. Every piece of job content is put into the page with textContent or as an
// attribute value set through the DOM, never parsed as HTML, so args such as "<script>" stay text.
'use strict';

const STATES = ['scheduled', 'available', 'running', 'retryable', 'completed', 'discarded', 'cancelled'];
const REFRESH_MS = 2000;
let session = { csrfToken: null, csrfHeader: 'X-Skipjack-CSRF', readOnly: true };
let timer = null;

// ------------------------------------------------------------------ DOM helpers

/** el('td', {class: 'num'}, 'text', childNode, ...): strings become text nodes. */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
}

function stateBadge(s) { return el('span', { class: 'state ' + s, 'data-state': s }, s); }
function fmt(n) { return Number(n).toLocaleString('en-US'); }
// Args arrive as JSON (the shape in docs/operating.md, "JSON output"); they are shown as JSON text.
function argsText(args, indent) { return JSON.stringify(args, null, indent); }
function errorText(e) { return e ? (e.class || '') + ': ' + (e.message || '') : ''; }
function ago(iso) {
  if (!iso) return '';
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 120) return s + 's ago';
  if (s < 7200) return Math.round(s / 60) + 'm ago';
  if (s < 172800) return Math.round(s / 3600) + 'h ago';
  return Math.round(s / 86400) + 'd ago';
}

function flash(message, bad) {
  const f = document.getElementById('flash');
  f.textContent = message;
  f.className = bad ? 'bad' : '';
  f.hidden = false;
  clearTimeout(flash.t);
  flash.t = setTimeout(() => { f.hidden = true; }, 4000);
}

// ------------------------------------------------------------------ API

async function api(path) {
  const r = await fetch(path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  if (!r.ok) throw new Error((await r.text()) || r.statusText);
  return r.json();
}

async function post(path) {
  const r = await fetch(path, {
    method: 'POST', credentials: 'same-origin',
    headers: { [session.csrfHeader]: session.csrfToken, Accept: 'application/json' }
  });
  let body = null;
  try { body = await r.json(); } catch (e) { /* plain-text refusal */ }
  return { ok: r.ok, status: r.status, body };
}

// ------------------------------------------------------------------ routing

function route() {
  const hash = location.hash || '#/';
  const [path, query] = hash.slice(1).split('?');
  const params = new URLSearchParams(query || '');
  document.getElementById('nav-overview').classList.toggle('active', path === '/');
  document.getElementById('nav-jobs').classList.toggle('active', path.startsWith('/jobs'));
  const m = path.match(/^\/jobs\/(\d+)$/);
  if (m) return () => jobView(m[1]);
  if (path === '/jobs') return () => jobsView(params);
  return () => overviewView();
}

// Renders are numbered: a view's data can arrive after the operator has moved on (the first
// overview load is the slowest request), and an older render must never replace a newer page.
let rendersStarted = 0;
let rendersFinished = 0;

async function render(showErrors) {
  const view = route();
  const ticket = ++rendersStarted;
  const live = document.getElementById('live');
  try {
    const nodes = await view();
    if (ticket === rendersStarted) {
      document.getElementById('view').replaceChildren(...nodes.filter(n => n !== null));
      live.classList.remove('stale');
      live.textContent = 'live · ' + new Date().toLocaleTimeString();
    }
  } catch (e) {
    if (ticket === rendersStarted) {
      live.classList.add('stale');
      live.textContent = 'offline';
      if (showErrors) document.getElementById('view').replaceChildren(el('p', { class: 'muted' }, 'Could not load: ' + e.message));
    }
  } finally {
    // Lets a test wait for a render it delayed to have been handled, applied or dropped.
    document.body.dataset.rendersFinished = String(++rendersFinished);
  }
}

function schedule() {
  clearInterval(timer);
  timer = setInterval(() => {
    // Leave the page alone while someone is typing in a filter.
    if (document.activeElement && ['INPUT', 'SELECT'].includes(document.activeElement.tagName)) return;
    render(false);
  }, REFRESH_MS);
}

// ------------------------------------------------------------------ overview

async function overviewView() {
  const data = await api('/api/overview');
  const cards = el('div', { class: 'cards' }, STATES.map(s =>
    el('a', { class: 'card', href: '#/jobs?state=' + s, 'data-testid': 'total-' + s },
      el('div', { class: 'n' }, fmt(data.totals[s])), el('div', { class: 'label' }, s))));

  const queueRows = data.queues.map(q => el('tr', { 'data-queue': q.name },
    el('td', {}, el('a', { href: '#/jobs?queue=' + encodeURIComponent(q.name) }, q.name)),
    el('td', {}, q.paused ? el('span', { class: 'paused' }, 'paused') : 'running'),
    STATES.map(s => el('td', { class: 'num' }, fmt(q.counts[s]))),
    el('td', {}, session.readOnly ? null : el('button', {
      'data-action': q.paused ? 'resume' : 'pause',
      onclick: async () => {
        const r = await post('/api/queues/' + encodeURIComponent(q.name) + '/' + (q.paused ? 'resume' : 'pause'));
        flash(r.ok ? 'Queue ' + q.name + (q.paused ? ' resumed' : ' paused on every node') : 'Refused: ' + r.status, !r.ok);
        render(true);
      }
    }, q.paused ? 'Resume' : 'Pause'))));

  return [
    el('h1', {}, 'Overview'),
    cards,
    el('h2', {}, 'Finished jobs per minute, last hour'),
    el('div', { class: 'panel chart' }, chart(data.throughput),
      el('div', { class: 'legend' },
        ['completed', 'discarded', 'cancelled'].map(s => el('span', {}, el('i', { class: 'state ' + s }), s)))),
    el('h2', {}, 'Queues'),
    el('div', { class: 'panel' }, data.queues.length === 0 ? el('p', { class: 'muted' }, 'No jobs yet.') :
      el('table', { id: 'queues' },
        el('thead', {}, el('tr', {}, el('th', {}, 'Queue'), el('th', {}, 'Status'),
          STATES.map(s => el('th', { class: 'num' }, s)), el('th', {}, ''))),
        el('tbody', {}, queueRows)))];
}

/** Stacked bars per minute, drawn with SVG elements made through the DOM. */
function chart(buckets) {
  const w = Math.max(600, document.getElementById('view').clientWidth - 26), h = 150, pad = 24;
  const max = Math.max(1, ...buckets.map(b => b.completed + b.discarded + b.cancelled));
  const bw = (w - pad) / Math.max(1, buckets.length);
  const root = svg('svg', { viewBox: `0 0 ${w} ${h + 14}`, role: 'img', 'aria-label': 'finished jobs per minute' });
  root.append(svg('line', { x1: pad, y1: h, x2: w, y2: h, stroke: '#e3e6eb' }));
  const top = svg('text', { x: 0, y: 10, 'font-size': 10, fill: '#6b7280' });
  top.textContent = fmt(max);
  root.append(top);
  buckets.forEach((b, i) => {
    let y = h;
    for (const [s, color] of [['completed', '#2e9d5b'], ['discarded', '#c2413b'], ['cancelled', '#8d8f96']]) {
      const bh = (b[s] / max) * (h - 12);
      if (bh <= 0) continue;
      y -= bh;
      const r = svg('rect', { x: pad + i * bw + 1, y, width: Math.max(1, bw - 2), height: bh, fill: color });
      const t = svg('title', {});
      t.textContent = new Date(b.start).toLocaleTimeString() + ': ' + b[s] + ' ' + s;
      r.append(t);
      root.append(r);
    }
  });
  const label = svg('text', { x: pad, y: h + 12, 'font-size': 10, fill: '#6b7280' });
  label.textContent = '60 min ago';
  const now = svg('text', { x: w - 22, y: h + 12, 'font-size': 10, fill: '#6b7280' });
  now.textContent = 'now';
  root.append(label, now);
  return root;
}

// ------------------------------------------------------------------ jobs list

async function jobsView(params) {
  const q = new URLSearchParams();
  for (const k of ['queue', 'kind', 'state', 'args', 'after']) if (params.get(k)) q.set(k, params.get(k));
  q.set('limit', '50');
  const data = await api('/api/jobs?' + q.toString());

  const input = (name, label, placeholder) => el('label', {}, label,
    el('input', { name, value: params.get(name) || '', placeholder }));
  const stateSelect = el('select', { name: 'state' }, el('option', { value: '' }, 'any'),
    STATES.map(s => el('option', { value: s, selected: params.get('state') === s }, s)));
  const form = el('form', { class: 'filters', id: 'filters', onsubmit: (ev) => {
    ev.preventDefault();
    const p = new URLSearchParams();
    for (const f of form.querySelectorAll('input, select')) if (f.value.trim()) p.set(f.name, f.value.trim());
    location.hash = '#/jobs?' + p.toString();
  } }, input('queue', 'Queue', 'any'), input('kind', 'Kind', 'any'), el('label', {}, 'State', stateSelect),
    input('args', 'Args contain (JSON)', '{"userId": 42}'), el('button', { class: 'primary', type: 'submit' }, 'Filter'));

  const rows = data.jobs.map(j => el('tr', { 'data-job-id': j.id },
    el('td', { class: 'num' }, el('a', { href: '#/jobs/' + j.id }, String(j.id))),
    el('td', {}, j.queue), el('td', {}, j.kind), el('td', {}, stateBadge(j.state)),
    el('td', { class: 'num' }, j.attempt + '/' + j.maxAttempts),
    el('td', { title: j.createdAt }, ago(j.createdAt)),
    el('td', { class: 'args', title: argsText(j.args) }, argsText(j.args)),
    el('td', { class: 'err', title: errorText(j.lastError) }, errorText(j.lastError))));

  const more = data.nextCursor === null ? null : el('p', {}, el('a', {
    href: '#/jobs?' + (() => { const p = new URLSearchParams(params); p.set('after', data.nextCursor); return p.toString(); })(),
    id: 'next-page' }, 'Older jobs →'));

  return [
    el('h1', {}, 'Jobs'), form,
    el('div', { class: 'panel' }, rows.length === 0 ? el('p', { class: 'muted', id: 'no-jobs' }, 'No jobs match.') :
      el('table', { id: 'jobs' }, el('thead', {}, el('tr', {}, ['ID', 'Queue', 'Kind', 'State', 'Attempt', 'Created', 'Args', 'Last error']
        .map(h => el('th', {}, h)))), el('tbody', {}, rows))),
    more];
}

// ------------------------------------------------------------------ job detail

async function jobView(id) {
  let j;
  try {
    j = await api('/api/jobs/' + id);
  } catch (e) {
    return [el('h1', {}, 'Job ' + id), el('p', { class: 'muted' }, 'No such job.')];
  }
  const action = (name, label, cls) => session.readOnly ? null : el('button', {
    class: cls, 'data-action': name, onclick: async () => {
      if (name === 'delete' && !confirm('Delete job ' + id + '?')) return;
      const r = await post('/api/jobs/' + id + '/' + name);
      if (r.ok) flash('Job ' + id + ': ' + name + ' done');
      else flash('Job ' + id + ': ' + name + ' refused (' + r.status + (r.status === 409 ? ': its state does not allow it' : '') + ')', true);
      if (r.ok && name === 'delete') location.hash = '#/jobs';
      else render(true);
    } }, label);

  const errors = j.errors.length === 0 ? el('p', { class: 'muted' }, 'No errors.') :
    el('div', { id: 'errors' }, j.errors.map(e => el('div', { class: 'error-entry', 'data-attempt': e.attempt },
      el('div', {}, el('strong', {}, 'Attempt ' + e.attempt), ' · ', e.at ? new Date(e.at).toLocaleString() : '',
        ' · ', el('code', {}, e.class || '')),
      el('div', { class: 'message' }, e.message || ''),
      e.stack ? el('pre', { class: 'stack' }, e.stack) : null)));

  return [
    el('h1', {}, 'Job ' + j.id + ' ', el('span', { class: 'muted' }, j.kind), ' ', stateBadge(j.state)),
    // Only the actions the job's state allows (the server checks again: see docs/state-machine.md).
    el('div', { class: 'actions' },
      ['available', 'running'].includes(j.state) ? null : action('retry', 'Retry', 'primary'),
      ['scheduled', 'available', 'retryable', 'running'].includes(j.state) ? action('cancel', 'Cancel') : null,
      j.state === 'running' ? null : action('delete', 'Delete', 'danger')),
    el('div', { class: 'panel' }, el('dl', {},
      el('dt', {}, 'Queue'), el('dd', {}, j.queue),
      el('dt', {}, 'State'), el('dd', { id: 'job-state' }, j.state),
      el('dt', {}, 'Attempt'), el('dd', {}, j.attempt + ' of ' + j.maxAttempts),
      el('dt', {}, 'Priority'), el('dd', {}, String(j.priority)),
      el('dt', {}, 'Created'), el('dd', {}, j.createdAt || ''),
      el('dt', {}, 'Run at'), el('dd', {}, j.runAt || ''),
      el('dt', {}, 'Last attempt'), el('dd', {}, (j.attemptedAt || '—') + (j.claimedBy ? ' by ' + j.claimedBy : '')),
      el('dt', {}, 'Finished'), el('dd', {}, j.finishedAt || '—'))),
    el('h2', {}, 'Args'), el('pre', { id: 'args' }, argsText(j.args, 2)),
    el('h2', {}, 'Error history (' + j.errors.length + ')'), errors];
}

// ------------------------------------------------------------------ start

document.getElementById('search').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const v = document.getElementById('search-input').value.trim();
  if (/^\d+$/.test(v)) location.hash = '#/jobs/' + v;
  else if (v.startsWith('{') || v.startsWith('[')) location.hash = '#/jobs?args=' + encodeURIComponent(v);
  else if (v) location.hash = '#/jobs?kind=' + encodeURIComponent(v);
});

window.addEventListener('hashchange', () => render(true));

(async () => {
  try {
    session = await api('/api/session');
  } catch (e) { /* rendered below as offline */ }
  document.getElementById('mode').hidden = !session.readOnly;
  await render(true);
  schedule();
})();
