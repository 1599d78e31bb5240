// A display formula that flows: the same TeX rewritten so that KaTeX can break its lines. Display
// mode never breaks a line, so a live formula wider than a phone's screen had to scroll sideways
// (16 of 18 did, at 390 px). Inline mode breaks after a top-level relation or binary operator
// (=, ⇒, +, ·) and at \allowbreak, and only where the line is full. flowTex(tex, grouped):
//   \begin{aligned}…\end{aligned}, \begin{gathered}…  → each row a line of its own (\\), its & dropped
//   (&& a \quad), at the top level of the formula
//   TeX before or after such an environment             → a line of its own
//   \qquad, \quad and ",\ " at the top level            → a place to break (\allowbreak)
//   grouped: each item between those in braces         → lines break only between items, so a
//                                                         label stays with its value (an item
//                                                         with an \allowbreak of its own is not)
//   every line                                          → \displaystyle: fractions and sums keep
//                                                         their display size
// Set in inline mode (web/tex.js): a line that fits is not broken, so in a room just wide enough
// the formula reads as its display form did, its rows left-aligned instead of aligned at their &.
// (Top level: brace depth 0, outside \left…\right and any nested environment.)
const ENV = /\\begin\{(aligned|gathered)\}/g;
const SEPARATORS = ['\\qquad', '\\quad', ',\\ '];

// The index just past the \end{name} that closes the environment whose content starts at `from`.
function endOf(tex, name, from) {
  const open = `\\begin{${name}}`, close = `\\end{${name}}`;
  for (let depth = 1, i = from; ;) {
    const o = tex.indexOf(open, i), c = tex.indexOf(close, i);
    if (c < 0) return -1;
    if (o >= 0 && o < c) { depth++; i = o + open.length; continue; }
    if (--depth === 0) return c + close.length;
    i = c + close.length;
  }
}

const isCommand = (s, i, name) => s.startsWith(name, i) && !/[a-zA-Z]/.test(s[i + name.length] ?? '');

// s split at each of `seps` (tried in order at each place) where it stands at the top level:
// [part, separator after it (or '' for the last part)]…
function splitTop(s, seps) {
  const parts = [];
  let depth = 0, start = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const sep = depth === 0 && seps.find((x) => (/[a-z]$/.test(x) ? isCommand(s, i, x) : s.startsWith(x, i)));
    if (sep) { parts.push([s.slice(start, i), sep]); start = i + sep.length; i += sep.length - 1; continue; }
    if (ch === '\\') {
      if (isCommand(s, i, '\\begin') || isCommand(s, i, '\\left')) depth++;
      else if (isCommand(s, i, '\\end') || isCommand(s, i, '\\right')) depth--;
      i++;  // an escaped character (\{, \\) is not a brace
    } else if (ch === '{') depth++;
    else if (ch === '}') depth--;
  }
  parts.push([s.slice(start), '']);
  return parts;
}

// A line with a place to break after each top-level separator, the spaces that open the next item
// kept before it (a line does not start with a space). With `grouped`, each item in braces, but for
// one that says where it may break itself (\allowbreak: an item wider than a phone's line).
function breakable(line, grouped) {
  const parts = splitTop(line, SEPARATORS);
  return parts.map(([item, sep], k) => {
    const body = k ? item.replace(/^(?:\s|\\[ ,;])+/, '') : item;
    const next = parts[k + 1]?.[0].match(/^(?:\s|\\[ ,;])+/)?.[0] ?? '';
    const group = grouped && body.trim() && !body.includes('\\allowbreak');
    return (group ? `{${body}}` : body) + (sep ? `${sep}${next}\\allowbreak ` : '');
  }).join('');
}

export function flowTex(tex, grouped = false) {
  const lines = [];
  let rest = tex.trim(), m;
  ENV.lastIndex = 0;
  while ((m = ENV.exec(rest))) {
    const [begin, name] = m;
    const end = endOf(rest, name, m.index + begin.length);
    if (end < 0) break;
    lines.push(rest.slice(0, m.index));
    const body = rest.slice(m.index + begin.length, end - `\\end{${name}}`.length);
    lines.push(...splitTop(body, ['\\\\']).map(([row]) => row.replace(/(?<!\\)&&/g, '\\quad ').replace(/(?<!\\)&/g, '')));
    rest = rest.slice(end);
    ENV.lastIndex = 0;
  }
  lines.push(rest);
  return lines.map((l) => l.trim().replace(/^(?:\\q?quad\s*)+|(?:\\q?quad\s*)+$/g, '').trim()).filter(Boolean)
    .map((l) => `\\displaystyle ${breakable(l, grouped)}`).join(' \\\\ ');
}
