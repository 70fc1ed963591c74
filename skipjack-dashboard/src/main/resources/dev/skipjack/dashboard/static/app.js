// Skipjack dashboard. Every piece of job content is put into the page with textContent or as an
// attribute value set through the DOM, never parsed as HTML, so args such as "<script>" stay text.
'use strict';

const STATES = ['waiting', 'scheduled', 'available', 'running', 'retryable', 'completed', 'discarded', 'cancelled'];
const REFRESH_MS = 2000;
let session = { csrfToken: null, csrfHeader: 'X-Skipjack-CSRF', readOnly: true, shards: [] };
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

// Over several databases (shards) ids are unique per shard only: a job is addressed as shard:id,
// and every job, node, key and schedule the server sends carries its shard.
function sharded() { return (session.shards || []).length > 1; }
function jobRef(shard, id) { return shard ? shard + ':' + id : String(id); }
function shardCell(x) { return sharded() ? el('td', { class: 'shard' }, x.shard || '') : null; }
function shardHead() { return sharded() ? el('th', {}, 'Shard') : null; }

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
  const m = path.match(/^\/jobs\/((?:[^/:]+:)?\d+)$/);
  if (m) return () => jobView(m[1]);
  const w = path.match(/^\/workflows\/((?:[^/:]+:)?\d+)$/);
  if (w) return () => workflowView(w[1]);
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
    el('td', {}, q.paused ? el('span', { class: 'paused' }, 'paused')
      : (q.counts.available > 0 && q.servedBy.length === 0) ? el('span', { class: 'paused', title: 'no node running now serves this queue' }, 'unserved')
      : 'running'),
    STATES.map(s => el('td', { class: 'num' }, fmt(q.counts[s]))),
    el('td', {}, session.readOnly ? null : el('button', {
      'data-action': q.paused ? 'resume' : 'pause',
      onclick: async () => {
        const r = await post('/api/queues/' + encodeURIComponent(q.name) + '/' + (q.paused ? 'resume' : 'pause'));
        flash(r.ok ? 'Queue ' + q.name + (q.paused ? ' resumed' : ' paused on every node') : 'Refused: ' + r.status, !r.ok);
        render(true);
      }
    }, q.paused ? 'Resume' : 'Pause'))));

  const shardTable = !data.shards ? [] : [el('h2', {}, 'Shards'),
    el('div', { class: 'panel' }, el('table', { id: 'shards' },
      el('thead', {}, el('tr', {}, el('th', {}, 'Shard'), STATES.map(s => el('th', { class: 'num' }, s)))),
      el('tbody', {}, data.shards.map(d => el('tr', { 'data-shard': d.shard },
        el('td', {}, d.shard), STATES.map(s => el('td', { class: 'num', 'data-state': s }, fmt(d.totals[s]))))))))];

  return [
    el('h1', {}, 'Overview' + (sharded() ? ' of ' + session.shards.length + ' shards' : '')),
    cards, ...shardTable,
    el('h2', {}, 'Finished jobs per minute, last hour'),
    el('div', { class: 'panel chart' }, chart(data.throughput),
      el('div', { class: 'legend' },
        ['completed', 'discarded', 'cancelled'].map(s => el('span', {}, el('i', { class: 'state ' + s }), s)))),
    el('h2', {}, 'Queues'),
    el('div', { class: 'panel' }, data.queues.length === 0 ? el('p', { class: 'muted' }, 'No jobs yet.') :
      el('table', { id: 'queues' },
        el('thead', {}, el('tr', {}, el('th', {}, 'Queue'), el('th', {}, 'Status'),
          STATES.map(s => el('th', { class: 'num' }, s)), el('th', {}, ''))),
        el('tbody', {}, queueRows))),
    el('h2', {}, 'Nodes running now'),
    el('div', { class: 'panel' }, data.nodes.length === 0 ? el('p', { class: 'muted' }, 'No node is running.') :
      el('table', { id: 'nodes' },
        el('thead', {}, el('tr', {}, shardHead(), el('th', {}, 'Node'), el('th', {}, 'Queues'), el('th', {}, 'Started'),
          el('th', {}, 'Running jobs'))),
        el('tbody', {}, data.nodes.map(n => el('tr', { 'data-node': n.workerId },
          shardCell(n), el('td', {}, n.workerId), el('td', {}, n.queues), el('td', {}, n.startedAt),
          el('td', {}, n.running.length === 0 ? '—' : n.running.map(r => el('div', {},
            el('a', { href: '#/jobs/' + jobRef(n.shard, r.id) }, '#' + r.id), ' ' + r.kind + ' for ' + Math.round(r.runningForMillis / 1000) + ' s')))))))),
    el('h2', {}, 'Concurrency keys'),
    el('div', { class: 'panel' }, data.concurrencyKeys.length === 0
      ? el('p', { class: 'muted' }, 'No concurrency or sequence key is in use.') : [
      el('table', { id: 'keys' },
        el('thead', {}, el('tr', {}, shardHead(), el('th', {}, 'Key'), el('th', {}, 'Order'), el('th', { class: 'num' }, 'Held / limit'),
          el('th', {}, 'Usage'), el('th', { class: 'num' }, 'Running'), el('th', { class: 'num' }, 'Waiting'),
          el('th', {}, 'Held by'), el('th', {}, 'Status'))),
        el('tbody', {}, data.concurrencyKeys.map(k => el('tr', { 'data-key': k.key, 'data-status': keyStatus(k) },
          shardCell(k), el('td', { class: 'key' }, k.key),
          el('td', {}, k.ordered ? 'enqueue order' : 'priority'),
          el('td', { class: 'num' }, fmt(k.holding) + ' / ' + fmt(k.max)
            + (k.periodMillis == null ? '' : ' per ' + (k.periodMillis / 1000) + ' s')),
          el('td', {}, el('meter', { min: 0, max: k.max, value: Math.min(k.holding, k.max), title: k.holding + ' of ' + k.max + ' slots held' })),
          el('td', { class: 'num' }, fmt(k.running)),
          el('td', { class: 'num' }, fmt(k.waiting)),
          el('td', { class: 'holder' }, k.heldBy === null ? '—' : [el('a', { href: '#/jobs/' + jobRef(k.shard, Number(k.heldBy)) }, '#' + k.heldBy),
            k.heldByState ? ' ' : null, k.heldByState ? stateBadge(k.heldByState) : null]),
          el('td', {}, keyStatus(k) === 'blocked'
            ? el('span', { class: 'blocked' }, 'blocked by ', el('a', { href: '#/jobs/' + jobRef(k.shard, Number(k.heldBy)) }, 'job ' + k.heldBy), ' (discarded)')
            : keyStatus(k) === 'full' ? el('span', { class: 'paused' }, 'full') : '—'))))),
      data.concurrencyKeysInUse > data.concurrencyKeys.length
        ? el('p', { class: 'muted' }, 'Showing ' + fmt(data.concurrencyKeys.length) + ' of ' + fmt(data.concurrencyKeysInUse)
          + ' keys in use, blocked and full first; skipjack keys lists them all.') : null]),
    el('h2', {}, 'Cron schedules'),
    el('div', { class: 'panel' }, data.schedules.length === 0 ? el('p', { class: 'muted' }, 'No cron schedules.') :
      el('table', { id: 'schedules' },
        el('thead', {}, el('tr', {}, shardHead(), el('th', {}, 'Schedule'), el('th', {}, 'Expression'), el('th', {}, 'Zone'),
          el('th', {}, 'Kind'), el('th', {}, 'Next tick'), el('th', {}, 'Last tick'))),
        el('tbody', {}, data.schedules.map(c => el('tr', { 'data-schedule': c.name },
          shardCell(c), el('td', {}, c.name), el('td', {}, c.expression), el('td', {}, c.zone), el('td', {}, c.kind),
          el('td', {}, c.nextTickAt), el('td', {}, c.lastTickAt ? [c.lastTickAt + ' ',
            el('a', { href: '#/jobs/' + jobRef(c.shard, c.lastJobId) }, '#' + c.lastJobId)] : '—'))))))];
}

/** 'blocked' (an ordered key held by a discarded job), 'full' (every slot held) or 'ok'. */
function keyStatus(k) { return k.blocked ? 'blocked' : k.full ? 'full' : 'ok'; }

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
  for (const k of ['queue', 'kind', 'state', 'args', 'tag', 'after']) if (params.get(k)) q.set(k, params.get(k));
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
    input('args', 'Args contain (JSON)', '{"userId": 42}'), input('tag', 'Tag', 'any'), el('button', { class: 'primary', type: 'submit' }, 'Filter'));

  const rows = data.jobs.map(j => el('tr', { 'data-job-id': j.id, 'data-shard': j.shard },
    shardCell(j), el('td', { class: 'num' }, el('a', { href: '#/jobs/' + jobRef(j.shard, j.id) }, String(j.id))),
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
      el('table', { id: 'jobs' }, el('thead', {}, el('tr', {}, [sharded() ? 'Shard' : null, 'ID', 'Queue', 'Kind', 'State', 'Attempt', 'Created', 'Args', 'Last error']
        .filter(h => h !== null).map(h => el('th', {}, h)))), el('tbody', {}, rows))),
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

  // What the handler reported (Job.progress, Job.log): shown as text, never as markup.
  const p = j.progress;
  const progress = p == null ? '—' : [el('progress', { max: 100, value: p.percent }), ' ', p.percent + '%',
    p.message ? ' · ' + p.message : '', el('span', { class: 'muted' }, ' (attempt ' + p.attempt + ', ' +
      (p.updatedAt ? new Date(p.updatedAt).toLocaleString() : '') + ')')];
  let shownAttempt = 0;
  const logLines = j.log.map(l => {
    const head = l.attempt === shownAttempt ? '' : (shownAttempt = l.attempt, '— attempt ' + l.attempt +
      (l.number > 1 ? ' (its first ' + (l.number - 1) + ' lines dropped)' : '') + '\n');
    return head + (l.loggedAt || '') + '  ' + l.line + '\n';
  }).join('');
  const log = j.log.length === 0 ? el('p', { class: 'muted', id: 'no-job-log' }, 'Nothing logged.') :
    el('pre', { id: 'job-log' }, logLines);

  return [
    el('h1', {}, 'Job ' + jobRef(j.shard, j.id) + ' ', el('span', { class: 'muted' }, j.kind), ' ', stateBadge(j.state)),
    // Only the actions the job's state allows (the server checks again: see docs/state-machine.md).
    el('div', { class: 'actions' },
      // A workflow's job is neither retried nor deleted alone (docs/workflows.md).
      ['available', 'running'].includes(j.state) || j.workflowId != null ? null : action('retry', 'Retry', 'primary'),
      ['waiting', 'scheduled', 'available', 'retryable', 'running'].includes(j.state) ? action('cancel', 'Cancel') : null,
      j.state === 'running' || j.workflowId != null ? null : action('delete', 'Delete', 'danger')),
    el('div', { class: 'panel' }, el('dl', {},
      j.shard ? [el('dt', {}, 'Shard'), el('dd', { id: 'job-shard' }, j.shard)] : null,
      el('dt', {}, 'Queue'), el('dd', {}, j.queue),
      el('dt', {}, 'State'), el('dd', { id: 'job-state' }, j.state +
        (j.stopRequested ? ' (' + j.stopRequested + ' by an operator: ends when its handler has stopped)' : '')),
      el('dt', {}, 'Attempt'), el('dd', {}, j.attempt + ' of ' + j.maxAttempts),
      el('dt', {}, 'Progress'), el('dd', { id: 'job-progress' }, progress),
      el('dt', {}, 'Priority'), el('dd', {}, String(j.priority)),
      el('dt', {}, 'Created'), el('dd', {}, j.createdAt || ''),
      el('dt', {}, 'Run at'), el('dd', {}, j.runAt || ''),
      el('dt', {}, 'Last attempt'), el('dd', {}, (j.attemptedAt || '—') + (j.claimedBy ? ' by ' + j.claimedBy : '')),
      el('dt', {}, 'Finished'), el('dd', {}, j.finishedAt || '—'),
      el('dt', {}, 'Unique key'), el('dd', { id: 'unique-key' }, j.uniqueKey || '—'),
      el('dt', {}, 'Concurrency key'), el('dd', { id: 'concurrency-key' }, j.concurrencyKey || '—'),
      el('dt', {}, 'Tags'), el('dd', { id: 'tags' }, ...(j.tags.length ? j.tags.map((t) =>
        el('a', { href: '#/jobs?tag=' + encodeURIComponent(t), class: 'tag' }, t)) : ['—'])),
      el('dt', {}, 'Metadata'), el('dd', {}, Object.keys(j.metadata).length ? el('pre', { id: 'metadata' }, argsText(j.metadata, 2)) : '—'),
      el('dt', {}, 'Workflow'), el('dd', { id: 'workflow' },
        j.workflowId != null ? workflowLink(j) : '—'))),
    el('h2', {}, 'Args'), el('pre', { id: 'args' }, argsText(j.args, 2)),
    el('h2', {}, 'Log (' + j.log.length + (j.log.length === 1 ? ' line)' : ' lines)')), log,
    el('h2', {}, 'Error history (' + j.errors.length + ')'), errors];
}

// ------------------------------------------------------------------ workflow detail

/** The job view's "Workflow" field: a link to the workflow's view, then the job's step. */
function workflowLink(j) {
  return [el('a', { href: '#/workflows/' + jobRef(j.shard, j.workflowId), id: 'workflow-link' }, '#' + j.workflowId), ', step ' + j.workflowStep];
}

/** "b ✓, c": the steps a step depends on, the ones already counted for it marked (docs/workflows.md). */
function dependsOnCell(s) {
  if (s.dependsOn.length === 0) return '—';
  return s.dependsOn.flatMap((p, i) => [i > 0 ? ', ' : null,
    s.satisfied.includes(p) ? el('span', { class: 'satisfied', title: 'its end has been counted for this step' }, p + ' ✓') : p]);
}

async function workflowView(id) {
  let w;
  try {
    w = await api('/api/workflows/' + id);
  } catch (e) {
    return [el('h1', {}, 'Workflow ' + id), el('p', { class: 'muted', id: 'no-workflow' }, 'No such workflow.')];
  }
  // Steps arrive in dependency order: a workflow inserts parents before their children.
  const rows = w.steps.map(s => el('tr', { 'data-step': s.name, 'data-job-id': s.job.id },
    el('td', {}, s.name),
    el('td', { class: 'num' }, el('a', { href: '#/jobs/' + jobRef(w.shard, s.job.id) }, '#' + s.job.id)),
    el('td', {}, stateBadge(s.job.state)),
    el('td', { class: 'num' }, s.job.attempt + '/' + s.job.maxAttempts),
    el('td', { class: 'depends-on' }, dependsOnCell(s)),
    el('td', { class: 'err', title: errorText(s.job.lastError) },
      ['discarded', 'cancelled'].includes(s.job.state) ? errorText(s.job.lastError) : '')));

  return [
    el('h1', {}, 'Workflow ' + jobRef(w.shard, w.id) + ' ', el('span', { class: 'muted' }, w.name), ' ',
      el('span', { id: 'workflow-state', class: 'state ' + w.state }, w.state)),
    el('div', { class: 'panel' }, el('dl', {},
      el('dt', {}, 'Policy'), el('dd', {}, w.policy),
      el('dt', {}, 'Remaining'), el('dd', { id: 'workflow-remaining' }, w.remaining + ' of ' + w.steps.length + ' jobs'),
      el('dt', {}, 'Created'), el('dd', {}, w.createdAt || ''),
      el('dt', {}, 'Finished'), el('dd', {}, w.finishedAt || '—'))),
    el('h2', {}, 'Steps'),
    el('div', { class: 'panel' }, el('table', { id: 'workflow-steps' },
      el('thead', {}, el('tr', {}, ['Step', 'Job', 'State', 'Attempt', 'Depends on', 'Last error'].map(h => el('th', {}, h)))),
      el('tbody', {}, rows)))];
}

// ------------------------------------------------------------------ start

document.getElementById('search').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const v = document.getElementById('search-input').value.trim();
  if (/^([^/:]+:)?\d+$/.test(v)) location.hash = '#/jobs/' + v;
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
