// The example page: makes ids and inspects a pasted one, through the
// package built in crates/js/pkg (served at /pkg/).
import { Guid, Luid, v3, Sno } from '/pkg/browser.js';

const types = { Guid, Luid, 'v3.Guid': v3.Guid, 'v3.Xuid': v3.Xuid, Sno };
const $ = (id) => document.getElementById(id);

function make() {
  const T = types[$('type').value];
  const n = Math.max(1, Math.min(100_000, Number($('count').value) || 1));
  const ids = n === 1 ? [T.now()] : [T.now(), ...T.batch(n - 1)];
  let increasing = true;
  for (let i = 1; i < ids.length; i++) increasing &&= ids[i].after(ids[i - 1]);
  $('made-count').value = String(ids.length);
  $('increasing').value = increasing ? 'yes' : 'NO';
  const list = $('ids');
  list.replaceChildren(
    ...ids.slice(0, 20).map((id) => {
      const li = document.createElement('li');
      li.textContent = id.toString();
      li.className = 'id';
      return li;
    }),
  );
  if (ids.length > 20) list.append(`… and ${ids.length - 20} more`);
}

/** The id a string is, trying each type: the first that reads it. */
function read(text) {
  const order = text.length === 36 ? ['v3.Xuid'] : ['Guid', 'Luid', 'v3.Xuid', 'Sno'];
  let first;
  for (const name of order) {
    try {
      return [name, types[name].parse(text)];
    } catch (e) {
      first ??= e;
    }
  }
  throw first;
}

function inspect() {
  const text = $('inspect').value.trim();
  const table = $('parts');
  table.replaceChildren();
  $('inspect-error').textContent = '';
  if (!text) return;
  try {
    const [name, id] = read(text);
    const rows = [
      ['type', name],
      ['string', id.toString()],
      ['hex', id.toHex()],
      ['time', id.time.toISOString()],
      ['time (ns)', id.timeNs.toString()],
    ];
    if (name === 'Sno') {
      rows.push(['meta', id.meta], ['partition', id.partition], ['sequence', id.sequence], ['tick', id.tick]);
    } else {
      rows.push(
        ['node', typeof id.node === 'bigint' ? `0x${id.node.toString(16)}` : `0x${id.node.toString(16).padStart(8, '0')}`],
        ['seq', id.seq],
        ['drift', id.drift],
        ['base62', id.toBase62()],
      );
    }
    for (const [k, v] of rows) {
      const tr = table.insertRow();
      tr.insertCell().textContent = k;
      const td = tr.insertCell();
      td.textContent = String(v);
      td.dataset.part = k;
    }
  } catch (e) {
    $('inspect-error').textContent = `${e.kind ?? e.name}: ${e.message}`;
  }
}

$('make').addEventListener('click', make);
$('inspect').addEventListener('input', inspect);

// ?type=…&n=…&inspect=… fill the form, as a link to a result.
const q = new URLSearchParams(location.search);
if (q.has('type')) $('type').value = q.get('type');
if (q.has('n')) $('count').value = q.get('n');
if (q.has('inspect')) $('inspect').value = q.get('inspect');
make();
inspect();
document.body.dataset.ready = 'yes';
