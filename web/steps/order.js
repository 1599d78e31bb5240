// The derivation's steps, in reading order. One id per step, shared by the page section
// (web/sections/<id>.html), the step module (web/steps/<id>.js), its experiments
// (web/experiments/<id>.js), the C++ comments (eq:<id>) and the Catch2 tags [eq:<id>].
export const ORDER = [
  'setup',
  'product-variance',
  'dot-variance',
  'softmax-saturation',
  'vanishing-gradients',
  'scaling-choices',
  'shift-vs-scale',
  'initialization',
  'breaking-assumptions',
  'temperature',
  'full-attention',
  'training-ablation',
  'exercises',
  'claims',
];
