// A line chart in SVG with both axes: time along x (labels from `xLabel`), values up y
// (0, half and the top, labelled by `yLabel`), one polyline per series, and a legend.

import { h } from './dom.js';

export interface Series {
  name: string;
  color: string;
  /** [x, y] points, x within the domain. */
  points: [number, number][];
}

export interface ChartOptions {
  /** The x range shown, e.g. [now - 60 s, now]. */
  x: [number, number];
  /** Ticks along x (values within the range). */
  xTicks: number[];
  xLabel: (x: number) => string;
  yLabel: (y: number) => string;
  /** The top of the y axis at least this (so a flat zero line still has a scale). */
  yMin?: number;
  /** What the y axis measures, written along it. */
  yTitle?: string;
  width?: number;
  height?: number;
}

const NS = 'http://www.w3.org/2000/svg';

function el(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** "nice" top for a y axis: 1, 2 or 5 times a power of ten, at least `v`. */
export function niceTop(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export function lineChart(series: Series[], o: ChartOptions): SVGSVGElement {
  const W = o.width ?? 640;
  const H = o.height ?? 160;
  const left = 52;
  const bottom = 22;
  const top = 8;
  const right = 10;
  const [x0, x1] = o.x;
  const max = niceTop(Math.max(o.yMin ?? 0, ...series.flatMap((s) => s.points.map((p) => p[1]))));
  const sx = (x: number) => left + ((x - x0) / (x1 - x0 || 1)) * (W - left - right);
  const sy = (y: number) => H - bottom - (y / max) * (H - bottom - top);
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'plot chart', role: 'img' }) as SVGSVGElement;
  const yAxis = el('g', { class: 'y-axis' });
  for (const y of [0, max / 2, max]) {
    yAxis.append(el('line', { x1: left, x2: W - right, y1: sy(y), y2: sy(y), class: y ? 'grid' : 'axis' }));
    yAxis.append(el('text', { x: left - 6, y: sy(y) + 4, 'text-anchor': 'end' }, o.yLabel(y)));
  }
  yAxis.append(el('line', { x1: left, x2: left, y1: top, y2: H - bottom, class: 'axis' }));
  if (o.yTitle) yAxis.append(el('text', { x: 10, y: (H - bottom) / 2, transform: `rotate(-90 10 ${(H - bottom) / 2})`, 'text-anchor': 'middle', class: 'axis-title' }, o.yTitle));
  const xAxis = el('g', { class: 'x-axis' });
  for (const x of o.xTicks) {
    xAxis.append(el('line', { x1: sx(x), x2: sx(x), y1: H - bottom, y2: H - bottom + 4, class: 'axis' }));
    xAxis.append(el('text', { x: sx(x), y: H - 6, 'text-anchor': x === x0 ? 'start' : x === x1 ? 'end' : 'middle' }, o.xLabel(x)));
  }
  svg.append(yAxis, xAxis);
  for (const s of series) {
    if (!s.points.length) continue;
    svg.append(el('polyline', { points: s.points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' '), stroke: s.color, class: 'series', 'data-series': s.name }));
  }
  return svg;
}

/** A legend: a swatch and a text per series. */
export function legend(items: { name: string; color: string; text: string }[]): HTMLElement {
  return h('div.legend', {}, ...items.map((i) => h('span.legend-item', { 'data-path': i.name, 'data-series': i.name }, h('span.swatch', { style: `background:${i.color}` }), i.text)));
}
