// The training curves' y axis (web/plots/training-curves.js): a log axis spans the decades of the
// points and of yCover, stops at its floor, keeps the decades it was drawn on while the points fit
// them, and labels at most what fits its height.
import { describe, expect, it } from 'vitest';
import { trainingYAxis } from '../../web/plots/training-curves.js';

const line = (...ys) => ys.map((y, i) => ({ x: i + 1, y }));
const log = { yLabel: 'loss', yLog: true, height: 240 };

describe('trainingYAxis', () => {
  it('spans the decades around the points and yCover', () => {
    expect(trainingYAxis([line(0.03, 2)], { ...log, yCover: [0.1, 10] }).domain).toEqual([0.01, 10]);
    expect(trainingYAxis([line(0.5, 300)], { ...log, yCover: [0.1, 10] }).domain).toEqual([0.1, 1000]);
  });

  it('stops at the floor: points under it (drawn under the frame) do not stretch it', () => {
    const floor = 1e-12, under = floor / 1000;
    const y = trainingYAxis([line(0.5, 1e-3, under, under)], { ...log, yCover: [1e-4, 10], yFloor: floor });
    expect(y.domain).toEqual([1e-4, 10]);
    // every point under the floor: yCover's decades, or with none the floor's own
    expect(trainingYAxis([line(under, under)], { ...log, yCover: [1e-4, 10], yFloor: floor }).domain).toEqual([1e-4, 10]);
    expect(trainingYAxis([line(under)], { ...log, yFloor: floor }).domain).toEqual([floor, 10 * floor]);
    // a point between the floor and yCover takes the axis down to its decade
    expect(trainingYAxis([line(3e-12, 1)], { ...log, yCover: [1e-4, 10], yFloor: floor }).domain).toEqual([floor, 10]);
  });

  it('keeps the decades it was drawn on while the points fit them, and never a kept end below the floor', () => {
    const kept = [1e-3, 10];
    expect(trainingYAxis([line(0.5, 2)], { ...log, yCover: [0.01, 10] }, kept).domain).toBe(kept);
    expect(trainingYAxis([line(0.5, 200)], { ...log, yCover: [0.01, 10] }, kept).domain).toEqual([0.01, 1000]);
    expect(trainingYAxis([line(0.5, 2)], { ...log, yCover: [0.01, 10], yFloor: 1e-2 }, kept).domain).toEqual([0.01, 10]);
  });

  it('never gives an empty domain, and labels at most one decade per 18 px of frame', () => {
    expect(trainingYAxis([line(1, 1)], log).domain).toEqual([1, 10]);
    const wide = trainingYAxis([line(1e-11, 1e8)], { ...log, yFloor: 1e-12 });
    expect(wide.domain).toEqual([1e-11, 1e8]);
    expect(wide.ticks.length).toBeLessThanOrEqual(Math.floor((240 - 60) / 18));
  });

  it('is linear without yLog, and without points, floor or cover', () => {
    expect(trainingYAxis([line(0.2, 0.9)], { yLabel: 'accuracy', yLog: false, yDomain: [0, 1] }).domain).toEqual([0, 1]);
    expect(trainingYAxis([[]], log).type).toBeUndefined();
  });
});
