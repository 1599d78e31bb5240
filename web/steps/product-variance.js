// (eq:product-variance) Var(XY) = 1 for independent X, Y of mean 0 and variance 1, whatever their
// law; and XY is not normal: its kurtosis is E[X⁴]·E[Y⁴] (9 for normal factors).
import { showDensityHistogram } from '../plots/density-histogram.js';
import { normalPdf } from '../plots/histogram.js';
import { fmt, fmtInt, fmtInterval, fmtShort } from '../format.js';
import { dataTable, fillTable, grid, liveFormula, liveSummary, panel, setTex, show } from '../readout.js';
import { FOURTH_MOMENT, productDensity } from '../experiments/product-variance.js';
import './product-variance.css';

export const id = 'product-variance';


export const params = {
  count: { kind: 'stops', values: [1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000], default: 50000,
    label: 'samples', format: fmtInt },
  distribution: { kind: 'choice', options: { normal: 'normal', uniform: 'uniform', rademacher: 'Rademacher (±1)' },
    default: 'normal', label: 'entries' },
  axis: { kind: 'choice', options: { linear: 'linear', log: 'log (tails)' }, default: 'linear', label: 'density axis' },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 1, label: 'seed' },
};

// E[X⁴] as TeX, and the exact density's label, per entry law.
const M4_TEX = { normal: '3', uniform: String.raw`\tfrac{9}{5}`, rademacher: '1' };
const LAW = {
  normal: { name: 'normal entries', density: 'K₀(|x|)/\u2060π' },
  uniform: { name: 'uniform entries on [−√3, √3]', density: 'ln(3/\u2060|x|)/6' },
  rademacher: { name: 'random-sign entries ±1', density: null },
};
const inside = ([lo, hi], x) => lo <= x && x <= hi;

export function mount(figure, { run }) {
  const formula = liveFormula();
  const hist = panel('Histogram of XY');
  hist.table.remove();
  const alt = document.createElement('div');
  hist.el.append(alt);
  const moments = panel('Moments of XY: measured and theory');
  moments.table.classList.add('moments');
  const note = document.createElement('p');
  note.className = 'panel-note';
  moments.el.append(note);
  const summary = liveSummary();
  figure.body.append(formula, grid(hist.el, moments.el), summary);

  return {
    async update({ count, distribution, axis, seed }) {
      const r = await run('productVariance', { count, seed, distribution }, { onProgress: figure.progress });
      if (!r) return;
      const s = r.summary;
      const m4 = FOURTH_MOMENT[distribution], kappa = m4 * m4;
      const law = LAW[distribution];
      const density = productDensity(distribution);
      // ±1 entries: XY is ±1, two point masses with no density, so its bars are probabilities and
      // no density curve is drawn beside them
      const mass = distribution === 'rademacher';
      const curves = mass ? [] : [
        ...(density ? [{ name: `${law.density}, exact`, pdf: density }] : []),
        { name: 'N(0, 1), same variance', pdf: normalPdf(1), dashed: true },
      ];
      showDensityHistogram(hist.plot, {
        ...s, curves, mass, xLabel: 'XY', yLog: axis === 'log', width: 460, height: 270,
        ariaLabel: mass
          ? `Histogram of ${fmtInt(s.n)} sampled products XY of ${law.name}, as the share of the samples in each bin: ` +
            `XY is −1 or 1${axis === 'log' ? ', on a log probability axis' : ''}`
          : `Histogram of ${fmtInt(s.n)} sampled products XY of ${law.name}` +
            `${density ? `, with the exact density ${law.density}` : ''} and the N(0, 1) density` +
            (axis === 'log' ? ', on a log density axis' : ''),
      });
      const w = (s.hi - s.lo) / s.counts.length;
      // beside each bar's density, the exact density's mean over the bar: what the bar estimates
      // (at the centre bin's centre the density itself is infinite)
      show(alt, dataTable('The histogram as a table', ['bin centre', 'count', ...(mass ? ['share of the samples'] : ['density', `${law.density}, mean over the bin`])],
        Array.from(s.counts, (c, b) => {
          const x = Math.round((s.lo + (b + 0.5) * w) * 1e9) / 1e9;  // the centre bin's centre is 0, not 10⁻¹⁶
          if (mass) return [fmt(x, 2), fmtInt(c), fmt(c / s.n)];
          return [fmt(x, 2), fmtInt(c), fmt(c / (s.n * w)), fmt(r.exactBars[b])];
        })));

      const rows = [
        { name: 'mean', value: s.mean, ci: s.meanCI, theory: 0, theoryText: '0' },
        { name: 'variance', value: s.variance, ci: s.varianceCI, theory: 1, theoryText: '1' },
        { name: 'E[(XY)⁴]', value: r.fourth.value, ci: r.fourth.ci, theory: kappa, theoryText: fmtShort(kappa) },
        { name: 'kurtosis', value: r.kurtosis.value, ci: r.kurtosis.ci, theory: kappa, theoryText: fmtShort(kappa) },
      ];
      // With ±1 entries (XY)² = 1 exactly: s² = n/(n−1)·(1 − x̄²) moves only through the sample mean,
      // an error of order 1/n that normal-approximation intervals do not describe, so none is shown.
      const degenerate = distribution === 'rademacher';
      fillTable(moments.table, ['moment', 'measured', '95% interval', 'theory'], rows.map((x) => {
        const noInterval = degenerate && x.name !== 'mean';
        return {
          name: x.name,
          cells: [fmt(x.value, 4), noInterval ? '—' : fmtInterval(x.ci, 4), x.theoryText],
          outside: !noInterval && !inside(x.ci, x.theory),
        };
      }));
      note.textContent = degenerate
        ? 'With ±1 entries XY is itself ±1, so (XY)² = 1 exactly: the sample variance differs from 1 only ' +
          'through the sample mean x̄, as n/\u2060(n−1)·(1 − x̄²), an error of order 1/\u2060n that a normal-approximation ' +
          'interval does not describe. No interval is shown for it or for the moments built on it.'
        : `A normal variable has kurtosis 3; XY has E[X⁴]·E[Y⁴] = ${fmtShort(kappa)}, an excess of ${fmtShort(kappa - 3)}. ` +
          'The kurtosis interval comes from the delta method and rests on the eighth moment of XY, finite here.';

      setTex(formula, String.raw`\begin{aligned}\operatorname{Var}(XY)&=\mathbb{E}[X^2]\,\mathbb{E}[Y^2]-\big(\mathbb{E}[X]\,\mathbb{E}[Y]\big)^2=1` +
        String.raw`&&\text{measured: }${fmt(s.variance, 4)}\\` +
        String.raw`\kappa(XY)&=\mathbb{E}[X^4]\,\mathbb{E}[Y^4]=${M4_TEX[distribution]}\cdot${M4_TEX[distribution]}=${fmtShort(kappa)}` +
        String.raw`&&\text{measured: }${fmt(r.kurtosis.value, 3)}\end{aligned}`, true);
      const where = (ci, t) => (degenerate ? '' : `, ${inside(ci, t) ? 'inside' : 'outside'} the 95% interval`);
      summary.textContent =
        `With ${fmtInt(s.n)} products XY of independent ${law.name} (seed ${seed}), the sampled variance is ` +
        `${fmt(s.variance, 4)} (theory 1${where(s.varianceCI, 1)}) and the kurtosis is ` +
        `${fmt(r.kurtosis.value, 3)} (theory ${fmtShort(kappa)}${where(r.kurtosis.ci, kappa)}; a normal variable has 3).`;
      figure.done(r);
    },
  };
}
