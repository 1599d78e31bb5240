// (eq:scaling-choices) experiments: no scale, 1/√d_k and 1/d_k on the same draws. The d_k
// curves come from softmaxSweep (softmax-saturation.js); see chunks.js for the contract.
import { softmaxDouble } from './reference.js';
import { SCALES, rowScores, softmaxSweep } from './softmax-saturation.js';
import { logSlope } from './vanishing-gradients.js';

const NAMES = ['none', 'sqrt', 'dk'];

// (eq:scaling-choices) The sweep for all three scales, and the measured exponent b in
// Var(scores) ∝ d_k^b for each (theory: 1 − 2a for the multiplier d_k^(−a)).
export function* scalingChoicesSweep(engine, { n, rows, seed }) {
  const sweep = yield* softmaxSweep(engine, { n, rows, seed, scales: NAMES });
  const slopes = Object.fromEntries(NAMES.map((k) => [k, logSlope(sweep.dks, sweep.scales[k].scoreVariance.mean)]));
  return { ...sweep, slopes };
}

const FLT_MIN_NORMAL = 2 ** -126;

// (eq:scaling-choices) One query, the three scales: its weights, and how accurate float32 softmax
// is on each set of logits against a double reference. Besides the relative error of the weights,
// the error of their deviations from uniform, p_j − 1/n: that is where 1/d_k leaves the
// information, and where tiny logits would hurt if floating point could not represent them.
export function* scalingChoicesRow(engine, { dk, n, seed, query }) {
  const out = { dk, n, seed, query, unitRoundoff: 2 ** -24, scales: {} };
  for (const name of NAMES) {
    const scale = SCALES[name](dk);
    const s = rowScores(engine, { dk, n, seed, query, scale });
    const p = engine.softmax(s, 1, n);
    const ref = softmaxDouble(s);
    let rel = 0, dev = 0, devScale = 0, underflow = 0;
    for (let j = 0; j < n; j++) {
      if (ref[j] >= FLT_MIN_NORMAL) rel = Math.max(rel, Math.abs(p[j] - ref[j]) / ref[j]);
      else if (p[j] === 0) underflow++;
      dev = Math.max(dev, Math.abs(p[j] - ref[j]));
      devScale = Math.max(devScale, Math.abs(ref[j] - 1 / n));
    }
    const st = engine.rowStats(p, 1, n);
    out.scales[name] = {
      scale, scores: s, p, max: st.max[0], entropy: st.entropy[0],
      scoreRange: Math.max(...s) - Math.min(...s),
      relError: rel,            // max_j |p_j − p_j^ref| / p_j^ref over weights float32 represents as normal numbers
      underflow,                // weights below that which float32 rounded to exactly 0
      deviationError: devScale > 0 ? dev / devScale : 0,  // error relative to max_j |p_j − 1/n|
    };
  }
  return out;
}

export const experiments = { scalingChoicesSweep, scalingChoicesRow };
