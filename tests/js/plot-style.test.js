// The axis helpers of web/plots/style.js: domains that redraws with similar data share.
import { describe, expect, it } from 'vitest';
import { powerDomain } from '../../web/plots/style.js';

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

