// Test-only mutations of the engine's results, to check the tests can fail.
export function mutate(e) {
  const m = process.env.MUT;
  const w = { ...e };
  if (m === 'softmax-ulps') w.softmax = (x, r, c) => e.softmax(x, r, c).map((v, i) => (i === 1 ? v * (1 + 3e-6) : v));
  if (m === 'ignore-causal') w.attention = (o) => e.attention(o && typeof o === 'object' ? { ...o, causal: false } : o);
  if (m === 'scale-1') w.attention = (o) => e.attention(o && typeof o === 'object' && o.scale === undefined ? { ...o, scale: 1 } : o);
  if (m === 'gradk') w.attentionBackward = (o) => { const r = e.attentionBackward(o); r.gradK = r.gradK.map((v) => v * 1.001); return r; };
  if (m === 'gradq-noscale') w.attentionBackward = (o) => { const r = e.attentionBackward(o); const s = o.scale ?? 1 / Math.sqrt(o.dk); r.gradQ = r.gradQ.map((v) => v / s); return r; };
  if (m === 'ignore-first') w.sampleDotProducts = (o) => e.sampleDotProducts(o && typeof o === 'object' ? { ...o, first: 0 } : o);
  if (m === 'var') w.describe = (x, o) => { const d = e.describe(x, o); return { ...d, variance: d.variance * (1 + 1e-8) }; };
  if (m === 'swallow') w.sampleEntries = (o) => { try { return e.sampleEntries(o); } catch { return e.sampleEntries({ seed: 17, count: 50, distribution: 'uniform' }); } };
  if (m === 'no-name') w.rowStats = (...a) => { try { return e.rowStats(...a); } catch (err) { err.message = err.message.replace('rowStats: ', ''); throw err; } };
  if (m === 'sbwd') w.softmaxBackward = (p, g, r, c) => e.softmaxBackward(p, g, r, c).map((v, i) => (r === 3 ? p[i] * g[i] : v));
  if (m === 'uniform-wide') w.sampleEntries = (o) => e.sampleEntries(o && o.distribution === 'uniform' ? { ...o, std: o.std * 1.01 } : o);
  if (m === 'dotvar') w.sampleDotProducts = (o) => e.sampleDotProducts(o && o.dk === 64 ? { ...o, std: 1.03 } : o);
  if (m === 'mask-nan') w.attention = (o) => { const r = e.attention(o); if (o && o.mask) r.output[3] = NaN; return r; };
  if (m === 'leak') { const keep = []; w.softmax = (x, r, c) => { const y = e.softmax(x, r, c); if (x.length > 1e5) keep.push(e.sampleEntries({ seed: 1, count: 2 ** 18 })); return y; }; }
  return w;
}
