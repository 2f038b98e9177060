// The script of every page roofsim writes (sim/report/html_page.h). It reads the JSON in #roofsim-data and draws
// the page its "page" field names: "report" (roofline chart, gap bars, op table), "sweep" (the sweep's charts and
// sweep.csv) or "diff" (two results op by op). Plain ES5 and the DOM only: the page must work from a file, offline,
// in any browser. With the fragment #selftest it also drives its own controls and writes what it saw into
// the <pre> element with id selftest-result, which tests/browser/report_pages_test.py reads.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('roofsim-data').textContent);
  var SVGNS = 'http://www.w3.org/2000/svg';
  var PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f',
                 '#bcbd22'];
  var DASHES = ['', '7 3', '2 3', '9 3 2 3', '1 4', '12 4'];
  var PREFIXES = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, ''], [1e-3, 'm'], [1e-6, '\u00b5'],
                  [1e-9, 'n'], [1e-12, 'p'], [1e-15, 'f']];

  function svg(tag, attrs, parent) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, attrs, text, parent) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function present(v) { return v !== null && v !== undefined && !(typeof v === 'number' && !isFinite(v)); }
  // Four significant digits with an SI prefix: 1.234 TFLOP/s, 56.7 us.
  function si(v, unit) {
    if (!present(v)) return '\u2013';
    if (v === 0) return '0 ' + unit;
    var a = Math.abs(v);
    for (var i = 0; i < PREFIXES.length; i++) {
      if (a >= PREFIXES[i][0] * 0.99995 || i === PREFIXES.length - 1) {
        return Number((v / PREFIXES[i][0]).toPrecision(4)) + ' ' + PREFIXES[i][1] + unit;
      }
    }
  }
  function plain(v) { return present(v) ? String(Number(v.toPrecision(4))) : '\u2013'; }
  function percent(v) { return present(v) ? Number((100 * v).toPrecision(3)) + ' %' : '\u2013'; }
  function ratio(v) { return present(v) ? '\u00d7' + Number(v.toPrecision(4)) : '\u2013'; }
  function uniqueSorted(values) {
    var seen = {}, out = [];
    values.forEach(function (v) { if (!seen.hasOwnProperty(v)) { seen[v] = true; out.push(v); } });
    return out.sort(compareValues);
  }
  function compareValues(a, b) { return a < b ? -1 : a > b ? 1 : 0; }
  function section(parent, id, title) {
    var s = html('section', {id: id}, null, parent);
    html('h2', null, title, s);
    return s;
  }

  // A table whose header cells sort it (numbers descending first, text ascending first; a second click reverses;
  // missing values always last). columns: {title, unit, numeric, value(row), format(value, row)}.
  function sortableTable(parent, id, columns, rows) {
    var wrap = html('div', {'class': 'table-wrap'}, null, parent);
    var table = html('table', {id: id, 'class': 'data'}, null, wrap);
    var head = html('tr', null, null, html('thead', null, null, table));
    var body = html('tbody', null, null, table);
    var state = {column: -1, direction: 1};
    function sortBy(ci, direction) {
      state.column = ci;
      state.direction = direction;
      var c = columns[ci];
      var order = rows.slice().sort(function (x, y) {
        var a = c.value(x), b = c.value(y), am = !present(a) || a === '', bm = !present(b) || b === '';
        if (am || bm) return am === bm ? x.rowIndex - y.rowIndex : (am ? 1 : -1);
        var d = c.numeric ? a - b : compareValues(String(a), String(b));
        return d !== 0 ? d * direction : x.rowIndex - y.rowIndex;
      });
      order.forEach(function (r) { body.appendChild(r.rowElement); });
      Array.prototype.forEach.call(head.children, function (th, i) {
        th.setAttribute('aria-sort', i === ci ? (direction > 0 ? 'ascending' : 'descending') : 'none');
      });
    }
    columns.forEach(function (c, ci) {
      var th = html('th', {'data-column': String(ci), 'aria-sort': 'none', title: 'Sort by ' + c.title},
                    c.title + (c.unit ? ' [' + c.unit + ']' : ''), head);
      if (c.numeric) th.className = 'num';
      th.addEventListener('click', function () {
        sortBy(ci, state.column === ci ? -state.direction : (c.numeric ? -1 : 1));
      });
    });
    rows.forEach(function (r, ri) {
      r.rowIndex = ri;
      var tr = html('tr', {'data-row': String(ri)}, null, body);
      r.rowElement = tr;
      columns.forEach(function (c) {
        var v = c.value(r);
        var td = html('td', c.numeric ? {'class': 'num'} : null, c.format ? c.format(v, r) : (present(v) ? String(v) : '\u2013'), tr);
        if (c.cellClass) td.className += ' ' + c.cellClass(v, r);
      });
    });
    return {table: table, body: body, sortBy: sortBy, columns: columns};
  }

  // Checkboxes that each show or hide a group; onChange(hiddenSet) after every click.
  function filterBox(parent, id, legend, values, colorOf, countOf, onChange) {
    var box = html('fieldset', {id: id, 'class': 'filter'}, null, parent);
    html('legend', null, legend, box);
    var hidden = {};
    values.forEach(function (v) {
      var label = html('label', null, null, box);
      var input = html('input', {type: 'checkbox', 'data-value': v}, null, label);
      input.checked = true;
      if (colorOf) html('span', {'class': 'swatch', style: 'background:' + colorOf(v)}, null, label);
      html('span', null, v + (countOf ? ' (' + countOf(v) + ')' : ''), label);
      input.addEventListener('change', function () {
        if (input.checked) delete hidden[v]; else hidden[v] = true;
        onChange(hidden);
      });
    });
    return hidden;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The roofline chart: log-log, ops at (OI at the main memory, achieved or attainable FLOP/s), the device's lines.
  function rooflineChart(parent, ops, lines, kindColor, tooltipOf) {
    var W = 960, H = 540, M = {l: 78, r: 16, t: 14, b: 52};
    var PW = W - M.l - M.r, PH = H - M.t - M.b;
    var wrap = html('div', {'class': 'chart-wrap'}, null, parent);
    var root = svg('svg', {id: 'roofline-chart', viewBox: '0 0 ' + W + ' ' + H, width: W, height: H,
                           role: 'img', 'aria-label': 'Roofline chart'}, wrap);
    var tooltip = html('div', {id: 'tooltip', role: 'tooltip'}, null, wrap);
    tooltip.style.display = 'none';
    var defs = svg('defs', {}, root);
    svg('rect', {x: 0, y: 0, width: PW, height: PH}, svg('clipPath', {id: 'plot-clip'}, defs));
    var plot = svg('g', {transform: 'translate(' + M.l + ',' + M.t + ')'}, root);
    var frame = svg('rect', {x: 0, y: 0, width: PW, height: PH, 'class': 'plot-frame'}, plot);
    var axes = svg('g', {'class': 'axes'}, plot);
    var clipped = svg('g', {'clip-path': 'url(#plot-clip)'}, plot);
    var lineLayer = svg('g', {'class': 'lines'}, clipped);
    var pointLayer = svg('g', {'class': 'points'}, clipped);
    var state = {hiddenKinds: {}, hiddenLines: {}};

    function log10(v) { return Math.log(v) / Math.LN10; }
    var xs = [], ys = [];
    ops.forEach(function (op) { if (op.x > 0 && op.y > 0) { xs.push(op.x); ys.push(op.y); if (op.ceiling_y > 0) ys.push(op.ceiling_y); } });
    lines.forEach(function (l) { if (l.kind === 'compute') ys.push(l.value); });
    (data.ridges || []).forEach(function (r) { if (r.oi > 0) xs.push(r.oi); });
    if (!xs.length) xs = [0.1, 1000];
    if (!ys.length) ys = [1e9, 1e15];
    var initial = {
      x0: Math.floor(log10(Math.min.apply(null, xs)) - 0.3), x1: Math.ceil(log10(Math.max.apply(null, xs)) + 0.3),
      y0: Math.floor(log10(Math.min.apply(null, ys)) - 0.3), y1: Math.ceil(log10(Math.max.apply(null, ys)) + 0.15)
    };
    var d = {x0: initial.x0, x1: initial.x1, y0: initial.y0, y1: initial.y1};
    function X(lx) { return (lx - d.x0) / (d.x1 - d.x0) * PW; }
    function Y(ly) { return PH - (ly - d.y0) / (d.y1 - d.y0) * PH; }

    function ticks(lo, hi) {
      var out = [], span = hi - lo, steps = span < 2.5 ? [1, 2, 5] : [1];
      for (var e = Math.floor(lo); e <= Math.ceil(hi); e++) {
        steps.forEach(function (s) { var l = e + log10(s); if (l >= lo - 1e-9 && l <= hi + 1e-9) out.push(l); });
      }
      if (span > 9) out = out.filter(function (l) { return Math.round(l) % 2 === 0; });
      return out;
    }
    function axisNumber(v) { return v >= 1e-3 && v < 1e4 ? String(Number(v.toPrecision(3))) : si(v, ''); }
    function drawAxes() {
      while (axes.firstChild) axes.removeChild(axes.firstChild);
      ticks(d.x0, d.x1).forEach(function (l) {
        svg('line', {x1: X(l), x2: X(l), y1: 0, y2: PH, 'class': 'grid'}, axes);
        svg('text', {x: X(l), y: PH + 16, 'text-anchor': 'middle', 'class': 'tick'}, axes).textContent = axisNumber(Math.pow(10, l));
      });
      ticks(d.y0, d.y1).forEach(function (l) {
        svg('line', {x1: 0, x2: PW, y1: Y(l), y2: Y(l), 'class': 'grid'}, axes);
        svg('text', {x: -6, y: Y(l) + 4, 'text-anchor': 'end', 'class': 'tick'}, axes).textContent = si(Math.pow(10, l), '');
      });
      svg('text', {x: PW / 2, y: PH + 40, 'text-anchor': 'middle', 'class': 'axis-title'}, axes).textContent =
          'operational intensity at ' + (data.main_memory || 'main memory') + ' [FLOP/B]';
      svg('text', {x: -PH / 2, y: -58, transform: 'rotate(-90)', 'text-anchor': 'middle', 'class': 'axis-title'}, axes)
          .textContent = 'performance [FLOP/s]';
    }
    // Each label sits on its own line, slid along it (compute lines leftwards, diagonals down towards the origin)
    // until its box clears the labels already placed.
    function drawLines() {
      while (lineLayer.firstChild) lineLayer.removeChild(lineLayer.firstChild);
      var sx = PW / (d.x1 - d.x0), sy = PH / (d.y1 - d.y0), placed = [];
      function box(x, y, w, angle) {
        var a = Math.abs(angle) * Math.PI / 180, c = Math.cos(a), s = Math.sin(a);
        return {x0: x - w * c - 2, x1: x + 2, y0: y - w * s - 12, y1: y + 3};
      }
      function clear(b) {
        return placed.every(function (p) { return b.x1 < p.x0 || b.x0 > p.x1 || b.y1 < p.y0 || b.y0 > p.y1; });
      }
      lines.forEach(function (l, i) {
        var g = svg('g', {'class': 'ceiling ' + l.kind, 'data-line': String(i)}, lineLayer);
        if (state.hiddenLines[i]) g.setAttribute('display', 'none');
        var lv = log10(l.value), a, b, label, text = l.label + ' ' + l.valueText, w = 6.1 * text.length;
        if (l.kind === 'compute') {
          a = [d.x0 - 1, lv]; b = [d.x1 + 1, lv];
          label = {x: PW - 6, y: Y(lv) - 5, angle: 0, dx: -40, dy: 0};
        } else {
          a = [d.x0 - 1, lv + d.x0 - 1]; b = [d.x1 + 1, lv + d.x1 + 1];
          var exitX = Math.min(d.x1, d.y1 - lv), exitY = lv + exitX, angle = Math.atan2(sy, sx);
          label = {x: X(exitX) - 8, y: Y(exitY) + 14, angle: -angle * 180 / Math.PI,
                   dx: -40 * Math.cos(angle), dy: 40 * Math.sin(angle)};
        }
        svg('path', {d: 'M' + X(a[0]) + ',' + Y(a[1]) + 'L' + X(b[0]) + ',' + Y(b[1]), stroke: l.color,
                     'stroke-dasharray': l.dash, 'class': 'ceiling-line'}, g);
        if (label.y < 0 || label.y > PH || label.x < 0) return;
        for (var k = 0; k < 12 && !clear(box(label.x, label.y, w, label.angle)); k++) {
          label.x += label.dx;
          label.y += label.dy;
        }
        if (!state.hiddenLines[i]) placed.push(box(label.x, label.y, w, label.angle));
        var t = svg('text', {x: label.x, y: label.y, 'text-anchor': 'end', fill: l.color, 'class': 'line-label',
                             transform: 'rotate(' + label.angle + ' ' + label.x + ' ' + label.y + ')'}, g);
        t.textContent = text;
      });
    }
    function drawPoints() {
      while (pointLayer.firstChild) pointLayer.removeChild(pointLayer.firstChild);
      ops.forEach(function (op) {
        if (!(op.x > 0 && op.y > 0)) return;
        var g = svg('g', {'class': 'op', 'data-op': String(op.index), 'data-kind': op.kind}, pointLayer);
        if (state.hiddenKinds[op.kind]) g.setAttribute('display', 'none');
        var px = X(log10(op.x)), py = Y(log10(op.y));
        if (op.ceiling_y > 0 && op.ceiling_y !== op.y) {
          var cy = Y(log10(op.ceiling_y));
          svg('line', {x1: px, x2: px, y1: py, y2: cy, 'class': 'gap-line'}, g);
          svg('line', {x1: px - 5, x2: px + 5, y1: cy, y2: cy, 'class': 'ceiling-tick'}, g);
        }
        var dot = svg('circle', {cx: px, cy: py, r: 5.5, fill: kindColor[op.kind], 'class': 'op-dot'}, g);
        dot.addEventListener('mouseenter', function (e) { showTooltip(op, e); });
        dot.addEventListener('mousemove', function (e) { moveTooltip(e); });
        dot.addEventListener('mouseleave', function () { tooltip.style.display = 'none'; dot.classList.remove('active'); });
      });
    }
    function showTooltip(op, e) {
      while (tooltip.firstChild) tooltip.removeChild(tooltip.firstChild);
      tooltipOf(op, tooltip);
      tooltip.style.display = 'block';
      tooltip.setAttribute('data-op', String(op.index));
      moveTooltip(e);
    }
    function moveTooltip(e) {
      var box = wrap.getBoundingClientRect();
      var x = e.clientX - box.left + 14, y = e.clientY - box.top + 14;
      if (x + 360 > box.width) x = Math.max(0, x - 390);
      tooltip.style.left = x + 'px';
      tooltip.style.top = y + 'px';
    }
    function draw() {
      root.setAttribute('data-domain', [d.x0, d.x1, d.y0, d.y1].map(function (v) { return v.toFixed(4); }).join(' '));
      drawAxes();
      drawLines();
      drawPoints();
    }
    function toData(e) {
      var box = root.getBoundingClientRect();
      var px = (e.clientX - box.left) * W / box.width - M.l, py = (e.clientY - box.top) * H / box.height - M.t;
      return {x: d.x0 + px / PW * (d.x1 - d.x0), y: d.y0 + (PH - py) / PH * (d.y1 - d.y0)};
    }
    root.addEventListener('wheel', function (e) {
      e.preventDefault();
      var p = toData(e), f = e.deltaY < 0 ? 0.8 : 1.25;
      d = {x0: p.x - (p.x - d.x0) * f, x1: p.x + (d.x1 - p.x) * f, y0: p.y - (p.y - d.y0) * f, y1: p.y + (d.y1 - p.y) * f};
      draw();
    }, {passive: false});
    var drag = null;
    frame.addEventListener('mousedown', function (e) { drag = toData(e); e.preventDefault(); });
    window.addEventListener('mousemove', function (e) {
      if (!drag) return;
      var p = toData(e), dx = drag.x - p.x, dy = drag.y - p.y;
      d = {x0: d.x0 + dx, x1: d.x1 + dx, y0: d.y0 + dy, y1: d.y1 + dy};
      draw();
    });
    window.addEventListener('mouseup', function () { drag = null; });
    function reset() { d = {x0: initial.x0, x1: initial.x1, y0: initial.y0, y1: initial.y1}; draw(); }
    root.addEventListener('dblclick', reset);
    draw();
    return {
      root: root, tooltip: tooltip, reset: reset,
      mark: function (index) {
        Array.prototype.forEach.call(pointLayer.children, function (g) {
          g.classList.toggle('marked', g.getAttribute('data-op') === String(index));
        });
      },
      setHiddenKinds: function (h) { state.hiddenKinds = h; drawPoints(); },
      setHiddenLines: function (h) { state.hiddenLines = h; drawLines(); }
    };
  }

  // Fixed colours for the causes gap_attribution.h names, so one cause looks the same in every report.
  var CAUSE_COLORS = {ceiling: '#9e9e9e', compute: '#9467bd', latency: '#1f77b4', bandwidth_queueing: '#ff7f0e',
                      tail: '#d62728', launch: '#8c564b', dependencies_dispatch: '#e377c2', dram_row_misses: '#bcbd22',
                      dram_refresh: '#17becf', dram_turnarounds: '#393b79', ahead_of_ceiling: '#2ca02c',
                      unattributed: '#c7c7c7', special_function: '#ff9896', vector: '#98df8a', throttling: '#c49c94'};
  var EXTRA_COLORS = ['#aec7e8', '#ffbb78', '#f7b6d2', '#dbdb8d', '#9edae5', '#c5b0d5', '#637939', '#843c39'];
  function causeColor(name, order) {
    if (CAUSE_COLORS.hasOwnProperty(name)) return CAUSE_COLORS[name];
    return EXTRA_COLORS[order.indexOf(name) % EXTRA_COLORS.length];
  }

  function reportPage(app) {
    var ops = data.ops;
    var run = ops.some(function (op) { return present(op.sim_time_s); });
    ops.forEach(function (op, i) { op.index = i; });
    var kinds = uniqueSorted(ops.map(function (op) { return op.kind; }));
    var kindColor = {};
    kinds.forEach(function (k, i) { kindColor[k] = PALETTE[i % PALETTE.length]; });
    var lines = [];
    (data.compute_lines || []).forEach(function (l) {
      lines.push({kind: 'compute', label: l.label, value: l.peak_flops_per_s, valueText: si(l.peak_flops_per_s, 'FLOP/s')});
    });
    (data.bandwidth_lines || []).forEach(function (l) {
      lines.push({kind: 'bandwidth', label: l.name, value: l.bytes_per_s, valueText: si(l.bytes_per_s, 'B/s')});
    });
    lines.forEach(function (l, i) { l.color = PALETTE[(i + 4) % PALETTE.length]; l.dash = DASHES[i % DASHES.length]; });
    lines = lines.filter(function (l) { return l.value > 0; });

    var controls = html('section', {id: 'controls', 'class': 'controls'}, null, app);
    var chartSection = section(app, 'roofline', 'Roofline');
    html('p', {'class': 'hint'}, 'Scroll to zoom, drag to pan, double-click to reset. Hover an op for its figures and ' +
         'gap causes. ' + (run ? 'Dots are the achieved rates; the tick above each is its binding ceiling.' :
                                 'Dots sit on each op\u2019s binding ceiling.'), chartSection);
    var chart = rooflineChart(chartSection, ops, lines, kindColor, function (op, box) {
      html('div', {'class': 'tt-title'}, op.name, box);
      html('div', {'class': 'tt-sub'}, [op.kind, op.dtype, op.engine].filter(Boolean).join(' \u00b7 '), box);
      var t = html('table', null, null, box);
      function row(k, v) { var tr = html('tr', null, null, t); html('th', null, k, tr); html('td', null, v, tr); }
      row('useful', si(op.useful_flops, 'FLOP'));
      row('OI ' + (data.main_memory || ''), plain(op.x) + ' FLOP/B');
      row('binding', op.binding + ' (' + op.bound_by + '): ' + si(op.ceiling_y, 'FLOP/s'));
      if (run) {
        row('achieved', si(op.achieved_flops_per_s, 'FLOP/s'));
        row('simulated', si(op.sim_time_s, 's'));
        row('efficiency', percent(op.efficiency));
      }
      var c = html('table', {'class': 'tt-ceilings'}, null, box);
      (data.variants || []).forEach(function (v, i) {
        var tr = html('tr', v === op.binding ? {'class': 'binding'} : null, null, c);
        html('th', null, v, tr);
        html('td', null, si(op.ceilings[i], 'FLOP/s'), tr);
        html('td', null, op.ceiling_bound_by[i], tr);
      });
      if (op.gap) {
        html('div', {'class': 'tt-sub'}, 'gap ' + si(op.gap.gap_s, 's') + ' over the ceiling\u2019s ' +
             si(op.gap.ceiling_time_s, 's') + ', by cause:', box);
        var g = html('table', {'class': 'tt-gap'}, null, box);
        op.gap.causes.slice().sort(function (a, b) { return Math.abs(b[1]) - Math.abs(a[1]); }).forEach(function (cause) {
          var tr = html('tr', null, null, g);
          html('th', null, cause[0], tr);
          html('td', null, si(cause[1], 's'), tr);
          html('td', null, op.sim_time_s > 0 ? percent(cause[1] / op.sim_time_s) : '', tr);
        });
      }
    });
    var offChart = ops.filter(function (op) { return !(op.x > 0 && op.y > 0); });
    if (offChart.length) {
      html('p', {'class': 'hint', id: 'off-chart'}, 'Not on the chart (no bytes or no FLOPs at ' + data.main_memory +
           '): ' + offChart.map(function (op) { return op.name; }).join(', '), chartSection);
    }
    if ((data.ridges || []).length) {
      html('p', {'class': 'hint'}, 'Ridge points with ' + data.main_memory + ': ' + data.ridges.map(function (r) {
        return r.compute + ' at ' + plain(r.oi) + ' FLOP/B';
      }).join('; '), chartSection);
    }

    var gapSection = section(app, 'gaps', 'Gap to the binding ceiling, by cause');
    var gapRows = [];
    var gapOps = ops.filter(function (op) { return op.gap; });
    if (!gapOps.length) {
      html('p', {'class': 'hint'}, 'Only results of roofsim run have a simulated time to split into causes.', gapSection);
    } else {
      var causeNames = [];
      gapOps.forEach(function (op) { op.gap.causes.forEach(function (c) { if (causeNames.indexOf(c[0]) < 0) causeNames.push(c[0]); }); });
      var legend = html('div', {'class': 'legend'}, null, gapSection);
      ['ceiling'].concat(causeNames).forEach(function (name) {
        var item = html('span', {'class': 'legend-item'}, null, legend);
        html('span', {'class': 'swatch', style: 'background:' + causeColor(name, causeNames)}, null, item);
        html('span', null, name === 'ceiling' ? 'binding ceiling\u2019s time' : name, item);
      });
      html('p', {'class': 'hint'}, 'Each bar is one op\u2019s simulated time: the binding ceiling\u2019s time, then ' +
           'the measured causes of the rest. Negative causes (ahead of the ceiling) are listed, not drawn.', gapSection);
      var list = html('div', {'class': 'gap-list'}, null, gapSection);
      gapOps.forEach(function (op) {
        var row = html('div', {'class': 'gap-row', 'data-op': String(op.index), 'data-kind': op.kind}, null, list);
        html('div', {'class': 'gap-name', title: op.name}, op.name, row);
        var bar = html('div', {'class': 'gap-bar'}, null, row);
        var parts = [['ceiling', op.gap.ceiling_time_s]].concat(op.gap.causes.filter(function (c) { return c[1] > 0; }));
        var whole = parts.reduce(function (s, p) { return s + p[1]; }, 0);
        parts.forEach(function (p) {
          if (!(whole > 0) || p[1] <= 0) return;
          var seg = html('div', {'class': 'gap-seg', 'data-cause': p[0],
                                 title: p[0] + ': ' + si(p[1], 's') + ' (' + percent(p[1] / op.sim_time_s) + ')'}, null, bar);
          seg.style.width = (100 * p[1] / whole).toFixed(3) + '%';
          seg.style.background = causeColor(p[0], causeNames);
        });
        // Rounding leaves causes of a few attoseconds; only those above a millionth of the op's time are listed.
        var negative = op.gap.causes.filter(function (c) { return c[1] < -1e-6 * op.sim_time_s; });
        html('div', {'class': 'gap-text'}, si(op.sim_time_s, 's') + ', efficiency ' + percent(op.efficiency) +
             negative.map(function (c) { return '; ' + c[0] + ' ' + si(c[1], 's'); }).join(''), row);
        gapRows.push(row);
      });
    }

    var tableSection = section(app, 'ops', 'Ops');
    var columns = [
      {title: 'op', value: function (op) { return op.name; }},
      {title: 'kind', value: function (op) { return op.kind; }},
      {title: 'dtype', value: function (op) { return op.dtype; }},
      {title: 'engine', value: function (op) { return op.engine; }},
      {title: 'useful', unit: 'FLOP', numeric: true, value: function (op) { return op.useful_flops; }, format: function (v) { return si(v, ''); }},
      {title: 'bytes ' + data.main_memory, unit: 'B', numeric: true, value: function (op) { return op.main_bytes; }, format: function (v) { return si(v, ''); }},
      {title: 'OI ' + data.main_memory, unit: 'FLOP/B', numeric: true, value: function (op) { return op.x; }, format: plain},
      {title: 'binding', value: function (op) { return op.binding; }},
      {title: 'bound_by', value: function (op) { return op.bound_by; }},
      {title: 'ceiling', unit: 'FLOP/s', numeric: true, value: function (op) { return op.ceiling_y; }, format: function (v) { return si(v, ''); }}
    ];
    if (run) {
      columns.push({title: 'simulated', unit: 's', numeric: true, value: function (op) { return op.sim_time_s; }, format: function (v) { return si(v, ''); }});
      columns.push({title: 'achieved', unit: 'FLOP/s', numeric: true, value: function (op) { return op.achieved_flops_per_s; }, format: function (v) { return si(v, ''); }});
      columns.push({title: 'efficiency', unit: '%', numeric: true, value: function (op) { return op.efficiency; }, format: function (v) { return present(v) ? plain(100 * v) : '\u2013'; }});
      columns.push({title: 'energy', unit: 'J', numeric: true, value: function (op) { return op.energy_j; }, format: function (v) { return si(v, ''); }});
    }
    var table = sortableTable(tableSection, 'op-table', columns, ops);
    // A row under the pointer marks its op on the chart.
    ops.forEach(function (op) {
      op.rowElement.addEventListener('mouseenter', function () { chart.mark(op.index); });
      op.rowElement.addEventListener('mouseleave', function () { chart.mark(-1); });
    });

    var hiddenLines = {};
    filterBox(controls, 'kind-filter', 'Op kinds', kinds, function (k) { return kindColor[k]; }, function (k) {
      return ops.filter(function (op) { return op.kind === k; }).length;
    }, function (hidden) {
      chart.setHiddenKinds(hidden);
      ops.forEach(function (op) { op.rowElement.style.display = hidden[op.kind] ? 'none' : ''; });
      gapRows.forEach(function (row) { row.style.display = hidden[row.getAttribute('data-kind')] ? 'none' : ''; });
    });
    var lineBox = html('fieldset', {id: 'ceiling-toggles', 'class': 'filter'}, null, controls);
    html('legend', null, 'Ceilings', lineBox);
    lines.forEach(function (l, i) {
      var label = html('label', null, null, lineBox);
      var input = html('input', {type: 'checkbox', 'data-line': String(i)}, null, label);
      input.checked = true;
      html('span', {'class': 'swatch', style: 'background:' + l.color}, null, label);
      html('span', null, l.label, label);
      input.addEventListener('change', function () {
        if (input.checked) delete hiddenLines[i]; else hiddenLines[i] = true;
        chart.setHiddenLines(hiddenLines);
      });
    });
    var resetButton = html('button', {id: 'reset-zoom', type: 'button'}, 'Reset zoom', controls);
    resetButton.addEventListener('click', chart.reset);

    return function selftest(check) {
      var visible = function () {
        return Array.prototype.filter.call(document.querySelectorAll('#roofline-chart g.op'), function (g) {
          return g.getAttribute('display') !== 'none';
        });
      };
      var visibleRows = function () {
        return Array.prototype.filter.call(table.body.children, function (tr) { return tr.style.display !== 'none'; });
      };
      var plotted = ops.filter(function (op) { return op.x > 0 && op.y > 0; });
      check('points drawn', visible().length === plotted.length && plotted.length > 0, visible().length + ' of ' + plotted.length);
      check('table rows', visibleRows().length === ops.length, visibleRows().length + ' of ' + ops.length);
      var first = visible()[0];
      if (first) {
        var dot = first.querySelector('circle'), r = dot.getBoundingClientRect();
        var at = {clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: false};
        dot.dispatchEvent(new MouseEvent('mouseenter', at));
        var op = ops[Number(first.getAttribute('data-op'))];
        check('hover shows the op', chart.tooltip.style.display === 'block' && chart.tooltip.textContent.indexOf(op.name) >= 0 &&
              chart.tooltip.textContent.indexOf(op.bound_by) >= 0, chart.tooltip.textContent.slice(0, 80));
        if (op.gap) check('hover shows gap causes', chart.tooltip.querySelectorAll('.tt-gap tr').length === op.gap.causes.length, '');
        dot.dispatchEvent(new MouseEvent('mouseleave', at));
        check('leaving hides it', chart.tooltip.style.display === 'none', '');
      }
      var kindInput = document.querySelector('#kind-filter input');
      if (kindInput) {
        var kind = kindInput.getAttribute('data-value');
        kindInput.click();
        var others = ops.filter(function (op) { return op.kind !== kind; });
        var plottedOthers = plotted.filter(function (op) { return op.kind !== kind; });
        check('filter hides the kind\u2019s points', visible().length === plottedOthers.length, kind + ': ' + visible().length + ' left');
        check('filter hides the kind\u2019s rows', visibleRows().length === others.length, visibleRows().length + ' rows left');
        kindInput.click();
        check('filter restores', visible().length === plotted.length && visibleRows().length === ops.length, '');
      }
      var lineInput = document.querySelector('#ceiling-toggles input');
      if (lineInput) {
        var index = lineInput.getAttribute('data-line');
        var shown = function () {
          var g = document.querySelector('#roofline-chart g.ceiling[data-line="' + index + '"]');
          return g !== null && g.getAttribute('display') !== 'none';
        };
        var before = shown();
        lineInput.click();
        var after = shown();
        lineInput.click();
        check('ceiling toggle', before && !after && shown(), before + ' ' + after);
      }
      var row = table.body.querySelector('tr[data-row="' + plotted[0].index + '"]');
      row.dispatchEvent(new MouseEvent('mouseenter'));
      var marked = document.querySelectorAll('#roofline-chart g.op.marked');
      check('a row marks its op', marked.length === 1 && marked[0].getAttribute('data-op') === String(plotted[0].index), '');
      row.dispatchEvent(new MouseEvent('mouseleave'));
      var sortColumn = run ? 10 : 4;
      var value = columns[sortColumn].value;
      var th = table.table.querySelector('th[data-column="' + sortColumn + '"]');
      th.click();
      var top = ops[Number(table.body.firstChild.getAttribute('data-row'))];
      var max = Math.max.apply(null, ops.map(value).filter(present));
      th.click();
      var bottom = ops[Number(table.body.firstChild.getAttribute('data-row'))];
      var min = Math.min.apply(null, ops.map(value).filter(present));
      check('sort by ' + columns[sortColumn].title, value(top) === max && value(bottom) === min, value(top) + ' ' + value(bottom));
      var domain = chart.root.getAttribute('data-domain');
      var box = chart.root.getBoundingClientRect();
      chart.root.dispatchEvent(new WheelEvent('wheel', {deltaY: -120, clientX: box.left + box.width / 2,
                                                        clientY: box.top + box.height / 2, bubbles: true, cancelable: true}));
      var zoomed = chart.root.getAttribute('data-domain');
      document.getElementById('reset-zoom').click();
      check('wheel zooms, reset restores', zoomed !== domain && chart.root.getAttribute('data-domain') === domain, zoomed);
    };
  }

  // ---------------------------------------------------------------------------------------------------------------
  function parseCsv(text) {
    var rows = [], row = [], field = '', quoted = false;
    for (var i = 0; i < text.length; i++) {
      var c = text[i];
      if (quoted) {
        if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
      } else if (c === '"') quoted = true;
      else if (c === ',') { row.push(field); field = ''; }
      else if (c === '\n') { row.push(field); rows.push(row); row = []; field = ''; }
      else if (c !== '\r') field += c;
    }
    if (field !== '' || row.length) { row.push(field); rows.push(row); }
    return rows;
  }

  // Sortable columns of a CSV's rows: a column is numeric when every non-empty cell is a number.
  function csvColumns(header, rows) {
    return header.map(function (h, ci) {
      var numeric = rows.every(function (r) { var v = r.cells[ci]; return v === undefined || v === '' || isFinite(Number(v)); }) &&
                    rows.some(function (r) { return r.cells[ci] !== '' && r.cells[ci] !== undefined; });
      return {title: h, numeric: numeric,
              value: function (r) { var v = r.cells[ci]; return v === undefined || v === '' ? null : numeric ? Number(v) : v; },
              format: function (v) { return present(v) ? (numeric ? plain(v) : String(v)) : '\u2013'; }};
    });
  }

  function sweepPage(app) {
    var chartSection = section(app, 'sweep-charts', 'Charts');
    (data.charts || []).forEach(function (c) {
      var fig = html('figure', {'class': 'sweep-chart'}, null, chartSection);
      html('img', {src: c.data_uri, alt: c.file}, null, fig);
      html('figcaption', null, c.file, fig);
    });
    if (!(data.charts || []).length) html('p', {'class': 'hint'}, 'No charts (no point finished).', chartSection);
    // The points' totals first (one row per point), then their ops.
    var totalsSection = section(app, 'sweep-totals', 'sweep_totals.csv');
    var totals = parseCsv(data.totals_csv || '');
    var totalsRows = totals.slice(1).map(function (cells) { return {cells: cells}; });
    if (totals.length) sortableTable(totalsSection, 'sweep-total-rows', csvColumns(totals[0], totalsRows), totalsRows);
    else html('p', {'class': 'hint'}, 'sweep_totals.csv is empty.', totalsSection);
    var tableSection = section(app, 'sweep-table', 'sweep.csv');
    var csv = parseCsv(data.csv || '');
    if (!csv.length) { html('p', {'class': 'hint'}, 'sweep.csv is empty.', tableSection); return null; }
    var header = csv[0], rows = csv.slice(1).map(function (cells) { return {cells: cells}; });
    var columns = csvColumns(header, rows);
    var numericColumn = columns.map(function (c) { return c.numeric; });
    var opColumn = header.indexOf('op');
    var controls = html('section', {id: 'controls', 'class': 'controls'}, null, tableSection);
    tableSection.insertBefore(controls, tableSection.children[1]);
    var table = sortableTable(tableSection, 'sweep-rows', columns, rows);
    if (opColumn >= 0) {
      var names = uniqueSorted(rows.map(function (r) { return r.cells[opColumn]; }));
      filterBox(controls, 'kind-filter', 'Ops', names, null, function (n) {
        return rows.filter(function (r) { return r.cells[opColumn] === n; }).length;
      }, function (hidden) {
        rows.forEach(function (r) { r.rowElement.style.display = hidden[r.cells[opColumn]] ? 'none' : ''; });
      });
    }
    return function selftest(check) {
      var visibleRows = function () {
        return Array.prototype.filter.call(table.body.children, function (tr) { return tr.style.display !== 'none'; }).length;
      };
      check('charts embedded', document.querySelectorAll('#sweep-charts img').length === (data.charts || []).length &&
            (data.charts || []).length > 0, '');
      check('table rows', visibleRows() === rows.length, visibleRows() + ' of ' + rows.length);
      var totalRows = document.querySelectorAll('#sweep-totals tbody tr').length;
      check('totals rows', totalRows === totalsRows.length && totalRows > 0, totalRows + ' of ' + totalsRows.length);
      var input = document.querySelector('#kind-filter input');
      if (input) {
        var name = input.getAttribute('data-value');
        input.click();
        var left = rows.filter(function (r) { return r.cells[opColumn] !== name; }).length;
        check('filter hides the op\u2019s rows', visibleRows() === left, visibleRows() + ' of ' + left);
        input.click();
      }
      var numeric = numericColumn.indexOf(true);
      if (numeric >= 0) {
        var th = table.table.querySelector('th[data-column="' + numeric + '"]');
        th.click();
        var top = rows[Number(table.body.firstChild.getAttribute('data-row'))];
        var max = Math.max.apply(null, rows.map(columns[numeric].value).filter(present));
        check('sort by ' + header[numeric], columns[numeric].value(top) === max, String(max));
      }
    };
  }

  // ---------------------------------------------------------------------------------------------------------------
  function diffPage(app) {
    var ops = data.ops;
    ops.forEach(function (op, i) { op.index = i; op.group = op.presence === 'both' ? (op.bound_changed ? 'bound changed' : 'matched') : op.presence; });
    var summary = section(app, 'summary', 'Compared');
    var st = html('table', {'class': 'data summary'}, null, summary);
    var head = html('tr', null, null, st);
    ['', 'folder', 'command', 'hardware', 'workload', 'total simulated'].forEach(function (h) { html('th', null, h, head); });
    [['A', data.a], ['B', data.b]].forEach(function (side) {
      var tr = html('tr', null, null, st);
      html('th', null, side[0], tr);
      [side[1].source, side[1].command, side[1].hardware, side[1].workload, si(side[1].total_sim_time_s, 's')].forEach(function (v) {
        html('td', null, v, tr);
      });
    });
    html('p', {'class': 'hint'}, 'Total simulated time B/A: ' + ratio(data.total_time_ratio) + '. ' + data.counts.both +
         ' ops in both (' + data.counts.bound_changes + ' with another bound), ' + data.counts.added + ' added, ' +
         data.counts.removed + ' removed.', summary);
    var controls = html('section', {id: 'controls', 'class': 'controls'}, null, app);
    var groups = uniqueSorted(ops.map(function (op) { return op.group; }));
    var groupColor = {'matched': '#1f77b4', 'bound changed': '#ff7f0e', 'added': '#2ca02c', 'removed': '#d62728'};

    var barSection = section(app, 'time-change', 'Simulated time B/A per op');
    var bars = html('div', {'class': 'ratio-list'}, null, barSection);
    var ratios = ops.map(function (op) { return op.time_ratio; }).filter(function (r) { return r > 0; });
    var span = Math.max(1, Math.max.apply(null, ratios.map(function (r) { return Math.abs(Math.log(r) / Math.LN2); }).concat([1])));
    var barRows = [];
    ops.forEach(function (op) {
      var row = html('div', {'class': 'ratio-row', 'data-op': String(op.index), 'data-group': op.group}, null, bars);
      html('div', {'class': 'gap-name', title: op.name}, op.name, row);
      var track = html('div', {'class': 'ratio-track'}, null, row);
      html('div', {'class': 'ratio-axis'}, null, track);
      if (op.time_ratio > 0) {
        var l = Math.log(op.time_ratio) / Math.LN2, w = 50 * Math.abs(l) / span;
        var bar = html('div', {'class': 'ratio-bar ' + (l > 0 ? 'slower' : 'faster'),
                               title: si(op.time_a_s, 's') + ' \u2192 ' + si(op.time_b_s, 's')}, null, track);
        bar.style.left = (l > 0 ? 50 : 50 - w).toFixed(3) + '%';
        bar.style.width = w.toFixed(3) + '%';
      }
      html('div', {'class': 'gap-text'}, op.presence === 'both' ? ratio(op.time_ratio) +
           (op.bound_changed ? ', ' + op.bound_by_a + ' \u2192 ' + op.bound_by_b : '') : op.presence, row);
      barRows.push(row);
    });
    html('p', {'class': 'hint'}, 'Bars on a log\u2082 scale: left of the axis B is faster, right of it slower; the ' +
         'longest bar is \u00d7' + Number(Math.pow(2, span).toPrecision(3)) + ' or its inverse.', barSection);

    var tableSection = section(app, 'ops', 'Ops');
    var columns = [
      {title: 'op', value: function (op) { return op.name; }},
      {title: 'kind', value: function (op) { return op.kind; }},
      {title: 'change', value: function (op) { return op.group; }},
      {title: 'time A', unit: 's', numeric: true, value: function (op) { return op.time_a_s; }, format: function (v) { return si(v, ''); }},
      {title: 'time B', unit: 's', numeric: true, value: function (op) { return op.time_b_s; }, format: function (v) { return si(v, ''); }},
      {title: 'time B/A', numeric: true, value: function (op) { return op.time_ratio; }, format: ratio,
       cellClass: function (v) { return present(v) ? (v > 1 ? 'slower' : v < 1 ? 'faster' : '') : ''; }}
    ];
    (data.levels || []).forEach(function (level, li) {
      columns.push({title: level + ' A', unit: 'B', numeric: true, value: function (op) { return op.bytes[li][0]; }, format: function (v) { return si(v, ''); }});
      columns.push({title: level + ' B', unit: 'B', numeric: true, value: function (op) { return op.bytes[li][1]; }, format: function (v) { return si(v, ''); }});
      columns.push({title: level + ' B/A', numeric: true, value: function (op) { return op.bytes[li][2]; }, format: ratio});
    });
    columns.push({title: 'bound_by A', value: function (op) { return op.bound_by_a; }});
    columns.push({title: 'bound_by B', value: function (op) { return op.bound_by_b; }, cellClass: function (v, op) { return op.bound_changed ? 'changed' : ''; }});
    var table = sortableTable(tableSection, 'op-table', columns, ops);
    filterBox(controls, 'kind-filter', 'Show', groups, function (g) { return groupColor[g] || '#777'; }, function (g) {
      return ops.filter(function (op) { return op.group === g; }).length;
    }, function (hidden) {
      ops.forEach(function (op) { op.rowElement.style.display = hidden[op.group] ? 'none' : ''; });
      barRows.forEach(function (row) { row.style.display = hidden[row.getAttribute('data-group')] ? 'none' : ''; });
    });
    return function selftest(check) {
      var visibleRows = function () {
        return Array.prototype.filter.call(table.body.children, function (tr) { return tr.style.display !== 'none'; }).length;
      };
      check('table rows', visibleRows() === ops.length, visibleRows() + ' of ' + ops.length);
      check('a bar per op', document.querySelectorAll('#time-change .ratio-row').length === ops.length, '');
      var input = document.querySelector('#kind-filter input');
      if (input) {
        var group = input.getAttribute('data-value');
        input.click();
        var left = ops.filter(function (op) { return op.group !== group; }).length;
        check('filter hides ' + group, visibleRows() === left, visibleRows() + ' of ' + left);
        input.click();
      }
      var th = table.table.querySelector('th[data-column="5"]');
      th.click();
      var top = ops[Number(table.body.firstChild.getAttribute('data-row'))];
      var max = Math.max.apply(null, ops.map(function (op) { return op.time_ratio; }).filter(present));
      check('sort by time B/A', ratios.length === 0 || top.time_ratio === max, String(max));
    };
  }

  // ---------------------------------------------------------------------------------------------------------------
  var app = document.getElementById('app');
  var pages = {report: reportPage, sweep: sweepPage, diff: diffPage};
  var selftest = null;
  try {
    selftest = pages[data.page](app);
  } catch (error) {
    window.roofsimErrors.push('render: ' + (error && error.stack ? error.stack : error));
  }
  if (window.location.hash === '#selftest') {
    var checks = [];
    var check = function (name, pass, detail) { checks.push({name: name, pass: !!pass, detail: String(detail)}); };
    try {
      if (selftest) selftest(check); else check('page rendered', false, 'no self-test');
    } catch (error) {
      window.roofsimErrors.push('selftest: ' + (error && error.stack ? error.stack : error));
    }
    var finish = function () {
      var result = {passed: window.roofsimErrors.length === 0 && checks.length > 0 &&
                            checks.every(function (c) { return c.pass; }),
                    checks: checks, errors: window.roofsimErrors};
      html('pre', {id: 'selftest-result'}, JSON.stringify(result), document.body);
    };
    // Images (the sweep's charts) decode after the script; the result is written once the page has loaded.
    if (document.readyState === 'complete') finish(); else window.addEventListener('load', function () {
      Array.prototype.forEach.call(document.querySelectorAll('#sweep-charts img'), function (img) {
        check('chart ' + img.alt + ' decodes', img.naturalWidth > 0, img.naturalWidth + ' px');
      });
      finish();
    });
  }
})();
