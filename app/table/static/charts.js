// Two charts under the fight: each side's chance to win by round (the odds timeline) and each
// combatant's blood by round (the statistics' series). Drawn with uPlot (vendor/, MIT) on a canvas;
// both are re-read when the fight's version moves (a new round, an undo), the older answer thrown away.
// Each chart's section says what it shows for tests and tools: data-rounds (the last round plotted)
// and data-series (how many lines); data-state is "drawn", "waiting" or "failed".

import uPlot from "./vendor/uPlot.esm.js";
import { el } from "./render.js";

const COLOURS = ["#8ecbff", "#ff8a80", "#7ee2a0", "#ffd166", "#d7a8ff", "#ffb07c", "#9ee6e6", "#f6a6d0"];
const TIMELINE_FIGHTS = 1000;
const RETRY_MS = 5000;

function chartSection(testid, titleKey) {
  const title = el("h3", { class: "chart-title" });
  const plot = el("div", { class: "chart-plot" });
  const note = el("p", { class: "chart-note", hidden: true });
  const section = el("figure", { class: "chart", "data-testid": testid, "data-state": "waiting" }, title, plot, note);
  return { section, title, plot, note, titleKey, chart: null, shape: "" };
}

function sizeOf(box) {
  const width = Math.max(240, Math.floor(box.plot.clientWidth || box.section.clientWidth || 320));
  const tall = window.innerWidth >= 1100;
  return { width, height: tall ? Math.round(Math.min(420, width * 0.5)) : Math.round(Math.max(200, width * 0.6)) };
}

function axisFont() {
  const px = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  return `${Math.round(px * 0.8)}px system-ui, sans-serif`;
}

// The y axis as wide as its longest label ("100" on a TV's large font), never cut.
function axisWidth(values, font) {
  const px = parseFloat(font) || 14;
  const longest = Math.max(1, ...(values || []).map((v) => String(v).length));
  return Math.ceil(longest * px * 0.65 + px);
}

// One uPlot per chart, made again only when its lines change (names, count); otherwise its data is set.
function draw(box, names, xs, columns, yRange, t) {
  const shape = JSON.stringify(names);
  const data = [xs, ...columns];
  if (!box.chart || box.shape !== shape) {
    if (box.chart) box.chart.destroy();
    const font = axisFont();
    const axis = { stroke: "#c4c7cc", grid: { stroke: "#3a3e46" }, ticks: { stroke: "#3a3e46" }, font };
    box.chart = new uPlot(
      {
        ...sizeOf(box),
        legend: { show: true, live: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: false, range: (u, min, max) => [0, Math.max(1, max)] }, y: { range: yRange } },
        axes: [
          { ...axis, label: t("charts.round"), labelFont: font, incrs: [1, 2, 5, 10, 20, 50, 100] },
          { ...axis, size: (u, values) => axisWidth(values, font) },
        ],
        series: [
          { label: t("charts.round") },
          ...names.map((name, i) => ({ label: name, stroke: COLOURS[i % COLOURS.length], width: 3, points: { size: 7 } })),
        ],
      },
      data,
      box.plot,
    );
    box.shape = shape;
  } else {
    box.chart.setData(data);
  }
  box.section.dataset.rounds = String(xs[xs.length - 1]);
  box.section.dataset.series = String(names.length);
  box.section.dataset.state = "drawn";
}

export function createCharts(api, container) {
  const odds = chartSection("odds-chart", "charts.odds");
  const blood = chartSection("blood-chart", "charts.blood");
  container.replaceChildren(odds.section, blood.section);
  let seen = null; // the version last read
  let generation = 0;
  let t = null;
  let combatants = [];

  function labels(translate) {
    t = translate;
    for (const box of [odds, blood]) box.title.textContent = t(box.titleKey);
  }

  function note(box, key) {
    box.note.hidden = !key;
    box.note.textContent = key ? t(key) : "";
    if (key && box.section.dataset.state !== "drawn") box.section.dataset.state = key === "charts.failed" ? "failed" : "waiting";
  }

  function drawBlood(stats) {
    const xs = stats.series.map((k) => k.round);
    const names = stats.combatants.map((c) => c.name || c.combatant.slice(0, 8));
    const columns = stats.combatants.map((c) =>
      stats.series.map((k) => {
        const point = k.combatants.find((p) => p.combatant === c.combatant);
        return point ? point.blood : null;
      }),
    );
    const vitality = Math.max(1, ...stats.combatants.map((c) => c.blood.start));
    draw(blood, names, xs, columns, (u, min, max) => [Math.min(0, min), Math.max(vitality, max)], t);
  }

  function drawOdds(timeline) {
    const xs = timeline.points.map((p) => p.round);
    const sides = [...new Set(timeline.points.flatMap((p) => p.sides.map((s) => s.side)))];
    // a combatant without a side fights on its own, under its id: shown by its name
    const named = sides.map((side) => {
      const alone = combatants.find((c) => c.id === side);
      return alone && alone.name ? alone.name : side;
    });
    const columns = sides.map((side) =>
      timeline.points.map((p) => {
        const found = p.sides.find((s) => s.side === side);
        return found ? Math.round(found.wins * 1000) / 10 : 0;
      }),
    );
    draw(odds, named, xs, columns, () => [0, 100], t);
  }

  async function read() {
    const mine = ++generation;
    const statsRead = api.stats().then(
      (stats) => mine === generation && drawBlood(stats),
      () => mine === generation && note(blood, "charts.failed"),
    );
    if (odds.section.dataset.state !== "drawn") note(odds, "charts.computing");
    const timelineRead = api.timeline(TIMELINE_FIGHTS).then(
      (timeline) => {
        if (mine !== generation) return;
        note(odds, null);
        drawOdds(timeline);
      },
      () => {
        if (mine !== generation) return;
        note(odds, "charts.failed");
        setTimeout(() => mine === generation && read(), RETRY_MS); // busy workers: try again while nothing changed
      },
    );
    await Promise.all([statsRead, timelineRead]);
  }

  window.addEventListener("resize", () => {
    for (const box of [odds, blood]) if (box.chart) box.chart.setSize(sizeOf(box));
  });

  return {
    // state: the page's; a changed version (a round, an undo, an edit) re-reads both charts.
    update(state, translate) {
      labels(translate);
      if (!state.encounter) return;
      combatants = state.encounter.combatants;
      const version = state.encounter.version;
      if (version === seen) return;
      seen = version;
      read();
    },
  };
}
