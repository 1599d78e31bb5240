// docs/PERFORMANCE.md's peers tables from the two runs' --json output (as for the figure):
//   node bench/peers.mjs --json > build/peers-node.json
//   node bench/peers-browser.mjs --json > build/peers-chromium.json
//   node bench/peers-markdown.mjs build/peers-node.json build/peers-chromium.json
import { readFileSync } from 'node:fs';
import { markdown } from './peers-report.mjs';

const files = process.argv.slice(2);
if (!files.length) throw new Error('usage: node bench/peers-markdown.mjs peers-node.json [peers-chromium.json]');
const name = (file) => (/chromium/i.test(file) ? 'Chromium' : 'Node');
console.log(markdown(files.map((f) => [name(f), JSON.parse(readFileSync(f, 'utf8'))])).join('\n'));
