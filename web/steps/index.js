// The derivation, in order. Each entry is a step module: { id, params, mount(figure, ctx) }.
// The same id names the page section, the C++ comments (eq:id) and the Catch2 tags [eq:id].
import * as dotVariance from './dot-variance.js';

export const steps = [dotVariance];
