// Live formulas (web/tex.js): the braced sign that lets a number change sign without a new shape.
import { describe, expect, it } from 'vitest';
import { texSigned } from '../../web/tex.js';

describe('texSigned', () => {
  it('writes the sign in braces before the digits of |x|', () => {
    expect(texSigned(0.5)).toBe('{+}0.5');
    expect(texSigned(-1.25, (v) => v.toFixed(1))).toBe('{-}1.3');
    expect(texSigned(0)).toBe('{+}0');
  });

  it('gives a negative value whose digits round to zero a plus sign: no −0.0', () => {
    expect(texSigned(-0.02, (v) => v.toFixed(1))).toBe('{+}0.0');
    expect(texSigned(-0.06, (v) => v.toFixed(1))).toBe('{-}0.1');
    expect(texSigned(-9e-4, (v) => `${(v * 1e4).toFixed(2)}\\times 10^{-4}`)).toBe('{-}9.00\\times 10^{-4}');
  });
});
