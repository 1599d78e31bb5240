// The axis helpers of web/plots/: domains that redraws with similar data share, log-axis ticks and
// their labels, a heatmap's (or bars') names thinned to what fits beside its cells, and a plot's
// width fitted to a narrow screen.
import { describe, expect, it } from 'vitest';
import { columnTicks, decades, fitDecades, fitTicks, fitWidth, powerDomain, powersOfTen, rowTicks } from '../../web/plots/style.js';

describe('powerDomain', () => {
  it('encloses the positive values in powers of the base, a power itself being its own end', () => {
    expect(powerDomain([0.5, 16384, 3, 700], 2)).toEqual([0.5, 16384]);
    expect(powerDomain([0.0013, 999], 10)).toEqual([0.001, 1000]);
    // ln 1000 / ln 10 is 2.9999999999999996: the ends must still be 1000 and 10⁻⁶, not 100 and 10⁻⁵
    expect(powerDomain([1000], 10)).toEqual([1000, 1000]);
    expect(powerDomain([1e-6, 0, -4], 10)).toEqual([1e-6, 1e-6]);
    expect(powerDomain([5], 3)).toEqual([3, 9]);
  });
});

describe('decades and powersOfTen', () => {
  it('tick every power of ten in the domain, its ends included', () => {
    expect(decades(1e-3, 1)).toEqual([1e-3, 1e-2, 1e-1, 1]);
    expect(decades(0.02, 5000)).toEqual([0.1, 1, 10, 100, 1000]);
  });

  it('thin a long axis to every k-th decade, at multiples of k, when asked for at most so many', () => {
    expect(decades(1e-3, 1, 4)).toEqual([1e-3, 1e-2, 1e-1, 1]);
    // 10⁻³⁷ … 10²: 40 decades, 8 labels at most → every 5th (10⁻³⁵ … 10⁰, eight)
    const thin = decades(1e-37, 100, 8);
    expect(thin.map((v) => Math.round(Math.log10(v)))).toEqual([-35, -30, -25, -20, -15, -10, -5, 0]);
    expect(decades(1e-12, 1e8, 9).map((v) => Math.round(Math.log10(v)))).toEqual([-12, -9, -6, -3, 0, 3, 6]);
    expect(powersOfTen(thin)(1e-35)).toBe('10⁻³⁵');
    // spans past 20 decades a label: every 50th, 100th … (never more than asked for)
    expect(decades(1e-300, 1e300, 3).length).toBeLessThanOrEqual(3);
    expect(decades(1e-4, 1e4).every((v, i) => v === Number(`1e${i - 4}`))).toBe(true);  // exact powers
    // no power of ten inside, or a range that is not one: no ticks (and no endless loop)
    expect(decades(0.5, 0.9, 5)).toEqual([]);
    expect(decades(0, 10)).toEqual([]);
    expect(decades(1, Infinity)).toEqual([]);
    expect(decades(10, 1)).toEqual([]);
    // fitted to a plot's height: one label per 18 px of its frame (the height less 60 px)
    expect(fitDecades(1e-37, 100, 240).length).toBeLessThanOrEqual(10);
    expect(fitDecades(1e-12, 1, 300)).toEqual(decades(1e-12, 1));  // 13 decades fit 240 px
  });
  it('label an axis of 1 to 1000 in full, any other as 10 with a superscript exponent, in one style', () => {
    const labels = (ticks) => ticks.map(powersOfTen(ticks));
    expect(labels([1, 10, 100, 1000])).toEqual(['1', '10', '100', '1000']);
    expect(labels([1, 10, 100, 1000, 1e4])).toEqual(['10⁰', '10¹', '10²', '10³', '10⁴']);
    expect(labels([1e-12, 1e-3, 0.1, 1])).toEqual(['10⁻¹²', '10⁻³', '10⁻¹', '10⁰']);
  });
});

describe('columnTicks and rowTicks', () => {
  const names = (n) => Array.from({ length: n }, (_, j) => String(j + 1));
  it('keeps every name when each fits under its cell', () => {
    expect(columnTicks(names(8), 8 * 34)).toBeUndefined();
    expect(columnTicks(names(9), 9 * 14)).toBeUndefined();  // one digit in 14 px
  });
  it('shows the first name and every k-th when two-digit names would touch', () => {
    expect(columnTicks(names(16), 16 * 18)).toEqual(['1', '2', '4', '6', '8', '10', '12', '14', '16']);
    expect(columnTicks(names(64), 64 * 12)).toEqual(['1', ...Array.from({ length: 32 }, (_, i) => String(2 * i + 2))]);
    expect(columnTicks(names(64), 64 * 4)).toEqual(['1', '10', '20', '30', '40', '50', '60']);
  });
  it('beside the rows, every name from 14 px a row, every other one below', () => {
    expect(rowTicks(names(16), 16 * 20)).toBeUndefined();
    expect(rowTicks(names(64), 64 * 12)).toEqual(columnTicks(names(64), 64 * 12));
  });
});

describe('fitWidth', () => {
  const at = (viewport, width) => {
    const saved = globalThis.innerWidth;
    globalThis.innerWidth = viewport;
    try { return fitWidth(width); } finally { globalThis.innerWidth = saved; }
  };
  it('keeps a plot its own width where the figure has room for it', () => {
    expect(at(1200, 900)).toBe(900);
    expect(at(1200, 320)).toBe(320);
  });
  it('narrows it to the figure\'s content on a narrow screen: the viewport less 2 × (2.5 rem + 1 px), at 16 px a rem here', () => {
    expect(at(390, 900)).toBe(390 - 82);
    expect(at(390, 520)).toBe(308);
    expect(at(390, 300)).toBe(300);
  });
  it('never below 240 px (a plot then scales down whole), nor above its own width', () => {
    expect(at(200, 900)).toBe(240);
    expect(at(200, 180)).toBe(180);
  });
});

describe('fitTicks', () => {
  const D = [32, 64, 128, 256, 512, 1024, 2048, 4096];
  it('keeps every tick where their labels have room, and thins them to every other one, then every fourth, where not', () => {
    expect(fitTicks(D, 600)).toEqual(D);                          // 86 px apart, 38 needed
    expect(fitTicks(D, 222)).toEqual([32, 128, 512, 2048]);       // a phone: 32 px apart
    expect(fitTicks(D, 100)).toEqual([32, 512]);                  // every fourth
    expect(fitTicks([1, 2], 10)).toEqual([1, 2]);                 // two ticks stay
  });
});
