// The URL's values as the controls take them (web/controls.js): a value the control offers is taken
// as it is, a number between its values becomes the nearest, anything else the default; the last
// two are said in a note, so an instructor's link never changes the view without saying so.
import { describe, expect, it } from 'vitest';
import { nextValues, parseParams, toSearch } from '../../web/controls.js';

const SPEC = {
  dk: { kind: 'stops', values: [16, 64, 256, 1024], default: 64, label: 'dₖ' },
  seed: { kind: 'int', min: 0, max: 1000, default: 1, label: 'seed' },
  mask: { kind: 'choice', options: { off: 'off', on: 'on' }, default: 'off', label: 'mask' },
};
const parse = (query) => parseParams(SPEC, new URLSearchParams(query));

describe('a step’s parameters from the URL', () => {
  it('takes the values the controls offer as they are, with no note', () => {
    expect(parse('dk=256&seed=7&mask=on')).toEqual({ values: { dk: 256, seed: 7, mask: 'on' }, notes: [] });
    expect(parse('')).toEqual({ values: { dk: 64, seed: 1, mask: 'off' }, notes: [] });
  });

  it('moves a number between the stops to the nearest on a log scale, and says so', () => {
    const { values, notes } = parse('dk=999');
    expect(values.dk).toBe(1024);
    expect(notes).toEqual(['dk: 999 is not one of the control’s values; using the nearest, 1024']);
    expect(parse('dk=120').values.dk).toBe(64);   // log: 120/64 < 256/120
    expect(parse('dk=130').values.dk).toBe(256);
  });

  it('names the nearest value as its control writes it', () => {
    // (temperature's τ: the note said "using the nearest, 1.4142135623730951" for tau=1.41)
    const tau = { tau: { kind: 'stops', values: [1, Math.SQRT2, 2], default: 1, label: 'τ', format: (v) => (v === Math.SQRT2 ? '√2' : String(v)) } };
    expect(parseParams(tau, new URLSearchParams('tau=1.41'))).toEqual({ values: { tau: Math.SQRT2 },
      notes: ['tau: 1.41 is not one of the control’s values; using the nearest, √2'] });
  });

  it('clamps and rounds an integer into the field’s range, and says so', () => {
    expect(parse('seed=-5')).toEqual({ values: { dk: 64, seed: 0, mask: 'off' }, notes: ['seed: -5 is not one of the control’s values; using the nearest, 0'] });
    expect(parse('seed=1e9').values.seed).toBe(1000);
    expect(parse('seed=2.4').values.seed).toBe(2);
    expect(parse('seed=2.4').notes).toHaveLength(1);
  });

  it('falls back to the default for what is not a value at all, and says so', () => {
    for (const q of ['dk=abc', 'dk=', 'dk=NaN', 'dk=Infinity', 'seed=%20', 'mask=maybe']) {
      const { values, notes } = parse(q);
      expect(values, q).toEqual({ dk: 64, seed: 1, mask: 'off' });
      expect(notes, q).toHaveLength(1);
      expect(notes[0], q).toMatch(/is not a valid value; using/);
    }
  });

  it('writes back only what differs from the defaults, which parse to the same values', () => {
    const values = { dk: 1024, seed: 1, mask: 'on' };
    const search = toSearch('dot-variance', SPEC, values);
    expect(search.toString()).toBe('step=dot-variance&dk=1024&mask=on');
    expect(parseParams(SPEC, search)).toEqual({ values, notes: [] });
  });
});

describe('the values one arrow press away (what a step draws ahead)', () => {
  it('are a slider\'s next stops, up first, and a number\'s value ± 1, within their ends; a choice has none', () => {
    expect(nextValues(SPEC.dk, 64)).toEqual([256, 16]);
    expect(nextValues(SPEC.dk, 16)).toEqual([64]);
    expect(nextValues(SPEC.dk, 1024)).toEqual([256]);
    expect(nextValues(SPEC.seed, 7)).toEqual([8, 6]);
    expect(nextValues(SPEC.seed, 0)).toEqual([1]);
    expect(nextValues(SPEC.seed, 1000)).toEqual([999]);
    expect(nextValues(SPEC.mask, 'off')).toEqual([]);
  });
});
