// nsspice waveform viewer: the script of the self-contained HTML file that `nsspice view` writes
// (app/view/html_view.cpp puts it after uPlot and the data). No network, no other file.
//
// Data: #nsv-meta (JSON: title, report, measurements, signals, time), the time as base64
// float64 (#nsv-time) or t0 + k·h, each signal as base64 float32 (#nsv-s<k>).
// Drawing: per plot (one per unit), only what the pixels can show. When the visible range holds
// more than 4 samples per pixel column, a min/max pyramid level is drawn instead of the samples:
// level j keeps, for blocks of 8·4^j samples, the min and the max of each signal, so every
// column still spans [min, max] of its samples (a PWM node stays a PWM node, a spike stays) and
// the work per redraw is O(pixels), not O(samples): 10^7 points pan and zoom smoothly.
// Interaction: drag to zoom, wheel to zoom at the pointer, shift+wheel or the arrow keys to pan,
// double-click or Reset for the whole run, click to place cursor A then B (Δt, Δv, 1/Δt read
// out below the plots), the legend to show or hide a signal.
// For tests: window.nsspiceView, and the URL hash #range=FROM,TO&cursors=A,B (seconds) applied on
// load; the state (visible range, drawn min/max per signal) is mirrored into <pre id="nsv-state">.
(function () {
  'use strict';
  const meta = JSON.parse(document.getElementById('nsv-meta').textContent);
  const n = meta.points;
  const timing = {start: performance.now()};  // milliseconds, reported in the state

  function decode(id, Type) {
    const text = atob(document.getElementById(id).textContent.trim());
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; ++i) bytes[i] = text.charCodeAt(i);
    return new Type(bytes.buffer);
  }

  const time = meta.time.uniform ? new Float64Array(n) : decode('nsv-time', Float64Array);
  if (meta.time.uniform) for (let k = 0; k < n; ++k) time[k] = meta.time.t0 + k * meta.time.h;
  const signals = meta.signals.map((s, k) => ({...s, y: decode('nsv-s' + k, Float32Array)}));

  // The pyramid: levels of block size 8·4^j with min and max per block.
  function pyramid(y) {
    const levels = [];
    let block = 8, prevMin = null, prevMax = null;
    while (n / block >= 256) {
      const m = Math.ceil(n / block), mn = new Float32Array(m), mx = new Float32Array(m);
      for (let b = 0; b < m; ++b) {
        let lo = Infinity, hi = -Infinity;
        if (prevMin === null) {
          for (let i = b * block, e = Math.min(n, i + block); i < e; ++i) {
            const v = y[i];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
          }
        } else {
          for (let i = 4 * b, e = Math.min(prevMin.length, i + 4); i < e; ++i) {
            if (prevMin[i] < lo) lo = prevMin[i];
            if (prevMax[i] > hi) hi = prevMax[i];
          }
        }
        mn[b] = lo;
        mx[b] = hi;
      }
      levels.push({block, mn, mx});
      prevMin = mn;
      prevMax = mx;
      block *= 4;
    }
    return levels;
  }
  timing.decoded = performance.now();
  for (const s of signals) s.levels = pyramid(s.y);
  timing.pyramid = performance.now();

  // First index with time[i] >= t.
  function lowerBound(t) {
    let lo = 0, hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (time[mid] < t) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  function valueAt(s, t) {
    const i = lowerBound(t);
    if (i <= 0) return s.y[0];
    if (i >= n) return s.y[n - 1];
    const t0 = time[i - 1], t1 = time[i];
    return t1 > t0 ? s.y[i - 1] + (s.y[i] - s.y[i - 1]) * (t - t0) / (t1 - t0) : s.y[i];
  }

  const SI = [[1e-15, 'f'], [1e-12, 'p'], [1e-9, 'n'], [1e-6, 'µ'], [1e-3, 'm'], [1, ''],
              [1e3, 'k'], [1e6, 'M'], [1e9, 'G']];
  function si(v, unit, digits) {
    if (!isFinite(v)) return String(v);
    const a = Math.abs(v);
    let pick = SI[5];
    for (const p of SI) if (a >= p[0] * 0.9995) pick = p;
    if (a === 0) pick = SI[5];
    return (v / pick[0]).toPrecision(digits || 4).replace(/\.?0+$/, '') + ' ' + pick[1] + unit;
  }

  // One plot per unit, in the order the signals first appear.
  const groups = [];
  for (const s of signals) {
    let g = groups.find((x) => x.unit === s.unit);
    if (!g) groups.push(g = {unit: s.unit, quantity: s.quantity, members: []});
    g.members.push(s);
  }
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
                   '#17becf'];
  const state = {from: time[0], to: time[n - 1], cursors: [], next: 0};
  const full = {from: time[0], to: time[n - 1]};

  // The data a plot draws over [from, to] at `width` pixel columns.
  function drawData(g, from, to, width) {
    const i0 = Math.max(0, lowerBound(from) - 1), i1 = Math.min(n, lowerBound(to) + 1);
    const count = i1 - i0, columns = Math.max(50, width);
    let level = null;
    for (const l of g.members[0].levels) if (l.block * columns * 2 <= count) level = l;
    const xs = [], ys = g.members.map(() => []);
    if (level === null) {
      for (let i = i0; i < i1; ++i) xs.push(time[i]);
      g.members.forEach((s, k) => { for (let i = i0; i < i1; ++i) ys[k].push(s.y[i]); });
    } else {
      const b0 = Math.floor(i0 / level.block), b1 = Math.ceil(i1 / level.block);
      const li = g.members[0].levels.indexOf(level);
      for (let b = b0; b < b1; ++b) {
        const start = b * level.block, mid = Math.min(n - 1, start + (level.block >> 1));
        xs.push(time[start], time[mid]);
      }
      g.members.forEach((s, k) => {
        const l = s.levels[li];
        for (let b = b0; b < b1; ++b) ys[k].push(l.mn[b], l.mx[b]);
      });
    }
    g.drawnLevel = level ? level.block : 1;
    return [xs, ...ys];
  }

  const root = document.getElementById('nsv-plots');
  let syncing = false;

  function width() { return Math.max(300, root.clientWidth - 20); }

  function setRange(from, to) {
    if (!(to > from)) return;
    const began = performance.now();
    state.from = from;
    state.to = to;
    syncing = true;
    for (const g of groups) {
      g.plot.batch(() => {
        g.plot.setData(drawData(g, from, to, g.plot.bbox.width / devicePixelRatio || width()),
                       false);
        g.plot.setScale('x', {min: from, max: to});
      });
    }
    syncing = false;
    timing.redraw = performance.now() - began;
    publish();
  }

  function drawCursors(u) {
    const ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    ctx.lineWidth = 1.5 * devicePixelRatio;
    state.cursors.forEach((t, k) => {
      if (t === undefined) return;
      const x = Math.round(u.valToPos(t, 'x', true));
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
      ctx.strokeStyle = k === 0 ? '#e6550d' : '#3182bd';
      ctx.setLineDash(k === 0 ? [] : [6, 4]);
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + h);
      ctx.stroke();
    });
    ctx.restore();
  }

  function placeCursor(t, which) {
    const k = which !== undefined ? which : state.next;
    state.cursors[k] = t;
    state.next = 1 - k;
    for (const g of groups) g.plot.redraw(false);
    readout();
  }

  function readout() {
    const [a, b] = state.cursors;
    const el = document.getElementById('nsv-cursors');
    if (a === undefined) {
      el.innerHTML = '<p class="hint">Click a plot to place cursor A, click again for B.</p>';
      return;
    }
    let html = '<table><tr><th></th><th>A</th><th>B</th><th>Δ (B − A)</th></tr>';
    const dt = b !== undefined ? b - a : undefined;
    html += `<tr><td>time</td><td>${si(a, 's', 6)}</td><td>${b !== undefined ? si(b, 's', 6) : ''}` +
            `</td><td>${dt !== undefined ? 'Δt = ' + si(dt, 's', 6) +
            (dt !== 0 ? ', 1/Δt = ' + si(1 / Math.abs(dt), 'Hz', 5) : '') : ''}</td></tr>`;
    for (const s of signals) {
      const va = valueAt(s, a), vb = b !== undefined ? valueAt(s, b) : undefined;
      html += `<tr><td>${escapeHtml(s.name)}</td><td>${si(va, s.unit, 6)}</td>` +
              `<td>${vb !== undefined ? si(vb, s.unit, 6) : ''}</td>` +
              `<td>${vb !== undefined ? 'Δv = ' + si(vb - va, s.unit, 6) : ''}</td></tr>`;
    }
    el.innerHTML = html + '</table>';
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"]/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;',
                                                     '"': '&quot;'}[c]));
  }

  // The state mirrored for tests and for the user (what is drawn, at which pyramid level).
  function publish() {
    const out = {ready: true, from: state.from, to: state.to, plots: [],
                 ms: {decode: timing.decoded - timing.start, pyramid: timing.pyramid - timing.decoded,
                      redraw: timing.redraw}};
    for (const g of groups) {
      const data = g.plot.data, p = {unit: g.unit, points: data[0].length, block: g.drawnLevel,
                                     series: []};
      g.members.forEach((s, k) => {
        let lo = Infinity, hi = -Infinity;
        const ys = data[k + 1];
        for (let i = 0; i < ys.length; ++i) {
          const x = data[0][i];
          if (x < state.from || x > state.to) continue;
          if (ys[i] < lo) lo = ys[i];
          if (ys[i] > hi) hi = ys[i];
        }
        p.series.push({name: s.name, shown: g.plot.series[k + 1].show, min: lo, max: hi});
      });
      out.plots.push(p);
    }
    document.getElementById('nsv-state').textContent = JSON.stringify(out);
    document.getElementById('nsv-range').textContent =
        `${si(state.from, 's', 6)} … ${si(state.to, 's', 6)} (${si(state.to - state.from, 's', 4)})`;
  }

  function makePlot(g, index) {
    const div = document.createElement('div');
    div.className = 'nsv-plot';
    root.appendChild(div);
    const opts = {
      width: width(),
      height: groups.length > 2 ? 220 : 300,
      scales: {x: {time: false}},
      legend: {live: true},
      cursor: {drag: {x: true, y: false, setScale: true}, sync: {key: 'nsv'}},
      axes: [
        {values: (u, vals) => vals.map((v) => si(v, 's', 4)), size: 40, space: 90},
        {label: `${g.quantity} [${g.unit}]`, values: (u, vals) => vals.map((v) => si(v, '', 4)),
         size: 70},
      ],
      series: [{label: 'time', value: (u, v) => v === null ? '' : si(v, 's', 6)}].concat(
          g.members.map((s, k) => ({
            label: s.name,
            stroke: palette[(index * 3 + k) % palette.length],
            width: 1.25,
            value: (u, v) => v === null ? '' : si(v, s.unit, 5),
          }))),
      hooks: {
        draw: [drawCursors],
        setScale: [(u, key) => {
          if (key !== 'x' || syncing) return;
          const {min, max} = u.scales.x;
          if (min !== state.from || max !== state.to) setRange(min, max);
        }],
        setSeries: [() => publish()],
      },
    };
    g.plot = new uPlot(opts, drawData(g, state.from, state.to, opts.width), div);
    const over = g.plot.over;
    let down = null;
    over.addEventListener('mousedown', (e) => { down = [e.clientX, e.clientY]; });
    over.addEventListener('mouseup', (e) => {
      if (down && Math.abs(e.clientX - down[0]) < 3 && Math.abs(e.clientY - down[1]) < 3) {
        const t = g.plot.posToVal(e.offsetX, 'x');
        placeCursor(t, e.shiftKey ? 1 : undefined);
      }
      down = null;
    });
    over.addEventListener('dblclick', () => setRange(full.from, full.to));
    over.addEventListener('wheel', (e) => {
      e.preventDefault();
      const span = state.to - state.from;
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        const d = (e.shiftKey ? e.deltaY : e.deltaX) > 0 ? 0.1 * span : -0.1 * span;
        pan(d);
        return;
      }
      const at = g.plot.posToVal(e.offsetX, 'x'), f = e.deltaY > 0 ? 1.25 : 0.8;
      setRange(Math.max(full.from, at - (at - state.from) * f),
               Math.min(full.to, at + (state.to - at) * f));
    }, {passive: false});
  }

  function pan(d) {
    const span = state.to - state.from;
    let from = state.from + d;
    from = Math.min(Math.max(full.from, from), full.to - span);
    setRange(from, from + span);
  }

  groups.forEach(makePlot);
  document.getElementById('nsv-reset').addEventListener('click', () => setRange(full.from, full.to));
  document.addEventListener('keydown', (e) => {
    const span = state.to - state.from;
    if (e.key === 'ArrowLeft') pan(-0.1 * span);
    if (e.key === 'ArrowRight') pan(0.1 * span);
    if (e.key === '+' || e.key === '=') setRange(state.from + 0.1 * span, state.to - 0.1 * span);
    if (e.key === '-') setRange(Math.max(full.from, state.from - 0.125 * span),
                                Math.min(full.to, state.to + 0.125 * span));
  });
  window.addEventListener('resize', () => {
    for (const g of groups) g.plot.setSize({width: width(), height: g.plot.height});
    setRange(state.from, state.to);
  });
  window.nsspiceView = {
    setRange, placeCursor, range: () => [state.from, state.to],
    state: () => JSON.parse(document.getElementById('nsv-state').textContent),
  };
  const hash = /range=([^,&]+),([^&]+)/.exec(location.hash);
  if (hash) setRange(parseFloat(hash[1]), parseFloat(hash[2]));
  else setRange(full.from, full.to);
  const cursors = /cursors=([^,&]+),([^&]+)/.exec(location.hash);
  if (cursors) {
    placeCursor(parseFloat(cursors[1]), 0);
    placeCursor(parseFloat(cursors[2]), 1);
  }
  readout();
})();
