// Number formatting for live readouts: significant digits, a real minus sign, no "-0".
export function fmt(x, digits = 3) {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '−∞';
  if (x === 0 || Math.abs(x) < 1e-12) return '0';
  const a = Math.abs(x);
  const s = a >= 1e5 || a < 1e-3 ? x.toExponential(digits - 1) : x.toPrecision(digits);
  // (no regular expressions: a heatmap's labels and tables call this thousands of times a redraw)
  const e = s.indexOf('e');
  const mantissa = x < 0 ? `−${s.slice(1, e < 0 ? s.length : e)}` : e < 0 ? s : s.slice(0, e);
  if (e < 0) return mantissa;
  const exp = s.slice(s[e + 1] === '+' ? e + 2 : e + 1);  // "e+5" → "5", "e-7" → "-7"
  return `${mantissa}×10${sup(exp)}`;
}

// digits and a minus sign (either) in superscript: sup('-12') = '⁻¹²'
const SUP = { '-': '⁻', '−': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
export const sup = (s) => {
  let out = '';
  for (const c of s) out += SUP[c];
  return out;
};

// digits in subscript: sub(12) = '₁₂' (k₁₂, q₃)
export const sub = (i) => String(i).replace(/\d/g, (d) => '₀₁₂₃₄₅₆₇₈₉'[d]);

// fmt, but a tiny nonzero value keeps its exponent (fmt writes anything below 10⁻¹² as 0).
export function fmtTiny(x, digits = 3) {
  if (x === 0 || !(Math.abs(x) < 1e-12)) return fmt(x, digits);
  const [m, e] = x.toExponential(digits - 1).split('e');
  return `${m.replace('-', '−')}×10${sup(String(Number(e)))}`;
}

// base to an integer power in superscript: fmtPow(2, -149) = "2⁻¹⁴⁹"
export const fmtPow = (base, exp) => `${base}${sup(String(Math.round(exp)))}`;

// A number as typed, or a theory value as a short exact decimal: at most 6 significant digits,
// trailing zeros dropped, a real minus sign (9, 3.24, 0.24, −3; not 9.00 or 0.240).
export const fmtShort = (x) => String(Number(x.toPrecision(6))).replace('-', '−');

// A number for TeX with `digits` fixed decimals: a plain hyphen for the sign (KaTeX typesets it as
// a minus), and no "-0.00" for a value that rounds to zero.
export const texFixed = (x, digits) => (Math.abs(x) < 0.5 * 10 ** -digits ? (0).toFixed(digits) : x.toFixed(digits));

// (a no-break space after the comma: an interval broken there read as two numbers)
export const fmtInterval = ([lo, hi], digits = 3) => `[${fmt(lo, digits)},\u00a0${fmt(hi, digits)}]`;

// n.toLocaleString('en-US') builds a formatter on every call: 35 µs in Chromium against 0.75 for
// one kept formatter (a data table of counts spent milliseconds in it), with the same text.
const INT = new Intl.NumberFormat('en-US');
export const fmtInt = (n) => INT.format(n);
