// The page's number formatting (web/format.js): what a reader sees for every kind of value.
import { describe, expect, it } from 'vitest';
import { fmt, fmtInt, fmtInterval, fmtPow, fmtShort, fmtTiny, sub, texFixed } from '../../web/format.js';
import { hasSubscript, subscriptRuns } from '../../web/subscripts.js';

describe('fmt', () => {
  it('gives significant digits with a real minus sign', () => {
    expect(fmt(Math.PI)).toBe('3.14');
    expect(fmt(-Math.PI, 4)).toBe('−3.142');
    expect(fmt(0.5, 1)).toBe('0.5');
    expect(fmt(-0.0123)).toBe('−0.0123');
    expect(fmt(512)).toBe('512');
  });

  it('writes large and small magnitudes as a mantissa times a power of ten, in superscripts', () => {
    expect(fmt(123456)).toBe('1.23×10⁵');
    expect(fmt(-2.5e-7)).toBe('−2.50×10⁻⁷');
    expect(fmt(1e21, 1)).toBe('1×10²¹');
    expect(fmt(0.000999)).toBe('9.99×10⁻⁴');
    // a value that rounds up to the next decade inside toPrecision keeps its exponent form
    expect(fmt(99999.5)).toBe('1.00×10⁵');
  });

  it('shows zero as 0 (never −0), and NaN and the infinities by name', () => {
    expect(fmt(0)).toBe('0');
    expect(fmt(-0)).toBe('0');
    expect(fmt(-1e-13)).toBe('0');
    expect(fmt(NaN)).toBe('NaN');
    expect(fmt(Infinity)).toBe('∞');
    expect(fmt(-Infinity)).toBe('−∞');
  });

  it('has no ASCII hyphen-minus or "e" in any output', () => {
    for (let i = -11; i <= 30; i++) {  // (below 1e-12 is shown as 0)
      for (const x of [1.234 * 10 ** i, -5.678 * 10 ** i]) {
        const s = fmt(x);
        expect(s).not.toMatch(/[-e+]/);
        // the text reads back as the number, to its 3 significant digits
        const back = Number(s.replace('−', '-').replace(/×10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)/, (_, e) =>
          `e${[...e].map((c) => '⁻⁰¹²³⁴⁵⁶⁷⁸⁹'.indexOf(c) - 1).map((d) => (d < 0 ? '-' : d)).join('')}`));
        expect(Math.abs(back - x)).toBeLessThanOrEqual(Math.abs(x) * 5e-3);
      }
    }
  });
});

describe('fmtInterval and fmtInt', () => {
  it('formats an interval with both ends like fmt', () => {
    expect(fmtInterval([-0.00123, 2.5], 2)).toBe('[−0.0012,\u00a02.5]');  // one unit: no break inside
  });
  it('groups thousands', () => {
    expect(fmtInt(50000)).toBe('50,000');
    expect(fmtInt(1234567)).toBe('1,234,567');
  });
});

describe('fmtPow', () => {
  it('writes an integer power in superscript, rounding the exponent', () => {
    expect(fmtPow(2, -149)).toBe('2⁻¹⁴⁹');
    expect(fmtPow('e', Math.log(2 ** -149))).toBe('e⁻¹⁰³');  // −103.28
    expect(fmtPow(10, 12)).toBe('10¹²');
  });
});

describe('fmtTiny and sub', () => {
  it('keeps the exponent of a value fmt would write as 0, and is fmt otherwise', () => {
    expect(fmtTiny(-2.9e-20)).toBe('−2.90×10⁻²⁰');
    expect(fmtTiny(0.25)).toBe(fmt(0.25));
    expect(fmtTiny(0)).toBe('0');
  });
  it('writes an index in subscript', () => {
    expect(sub(12)).toBe('₁₂');
    expect(`q${sub(3)}`).toBe('q₃');
  });
});

describe('fmtShort', () => {
  it('writes a value as typed: at most 6 significant digits, no trailing zeros, a real minus', () => {
    expect(fmtShort(9)).toBe('9');
    expect(fmtShort(3.24)).toBe('3.24');
    expect(fmtShort(Math.fround(10.2))).toBe('10.2');  // a float32 input reads as typed
    expect(fmtShort(-3)).toBe('−3');
    expect(fmtShort(1 / 3)).toBe('0.333333');
  });
});

describe('texFixed', () => {
  it('gives fixed decimals with a hyphen for TeX, and never −0', () => {
    expect(texFixed(Math.PI, 2)).toBe('3.14');
    expect(texFixed(-0.5, 3)).toBe('-0.500');
    expect(texFixed(-0.004, 2)).toBe('0.00');
    expect(texFixed(-0.006, 2)).toBe('-0.01');
  });
});

describe('subscriptRuns', () => {
  it('lowers the letters after a one-letter symbol and its underscore, and leaves a name such as FLT_MAX', () => {
    expect(subscriptRuns('σ_q²σ_k²')).toEqual(['σ', 'q', '²σ', 'k', '²']);
    expect(subscriptRuns('2·d_model/(d_model + dₖ)')).toEqual(['2·d', 'model', '/(d', 'model', ' + dₖ)']);
    expect(subscriptRuns('qᵢ = (W_Qᵀx)ᵢ')).toEqual(['qᵢ = (W', 'Q', 'ᵀx)ᵢ']);
    expect(subscriptRuns('ln FLT_MAX')).toEqual(['ln FLT_MAX']);
    expect(hasSubscript('ln FLT_MAX')).toBe(false);
    expect(hasSubscript('Var(q·k/√dₖ)')).toBe(false);
  });
});
