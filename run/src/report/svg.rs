//! Line charts (and stacked bars) as standalone SVG. Text is left to the viewer (a browser
//! renders it), so no font is needed at build or run time, unlike bitmap
//! plots.

use std::fmt::Write;

/// One curve: points in data coordinates, optional ± error bars.
pub struct Series {
    pub name: String,
    pub color: &'static str,
    pub points: Vec<(f64, f64)>,
    /// Half-widths of error bars, aligned with `points` (non-finite = none).
    pub errors: Option<Vec<f64>>,
    /// Draw markers at the points (for per-generation data), or only the line.
    pub markers: bool,
}

impl Series {
    pub fn line(name: &str, color: &'static str, points: Vec<(f64, f64)>) -> Series {
        Series { name: name.to_string(), color, points, errors: None, markers: false }
    }
    pub fn markers(name: &str, color: &'static str, points: Vec<(f64, f64)>) -> Series {
        Series { name: name.to_string(), color, points, errors: None, markers: true }
    }
}

/// A chart with axes, ticks, labels and a legend.
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Horizontal reference lines (value, label), e.g. 50% score.
    pub guides: Vec<(f64, String)>,
    /// Force the y range to include these values.
    pub y_include: Vec<f64>,
    /// Stacked bars: one layer per series, bottom first; a point `(x, y)`
    /// adds a segment of height `y` to the bar at `x`.
    pub stacked: Vec<Series>,
}

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 360.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 36.0;
const BOTTOM: f64 = 48.0;

/// Round tick positions (1, 2 or 5 times a power of ten) covering `lo..=hi`.
pub fn ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return vec![lo];
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

fn fmt_tick(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 10_000.0 {
        format!("{:.0}k", v / 1000.0)
    } else {
        // Three decimals at most, without trailing zeros: 3, 2.5, 0.125.
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Escapes text for XML and HTML (element content and quoted attributes).
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

impl Chart {
    pub fn new(title: &str, x_label: &str, y_label: &str) -> Chart {
        Chart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            series: Vec::new(),
            guides: Vec::new(),
            y_include: Vec::new(),
            stacked: Vec::new(),
        }
    }

    fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
        for s in &self.series {
            for (i, &(x, y)) in s.points.iter().enumerate() {
                if !(x.is_finite() && y.is_finite()) {
                    continue;
                }
                let e = s.errors.as_ref().and_then(|e| e.get(i).copied()).filter(|e| e.is_finite()).unwrap_or(0.0);
                x0 = x0.min(x);
                x1 = x1.max(x);
                y0 = y0.min(y - e);
                y1 = y1.max(y + e);
            }
        }
        for (x, top) in self.bar_tops() {
            x0 = x0.min(x - 0.5);
            x1 = x1.max(x + 0.5);
            y0 = y0.min(0.0);
            y1 = y1.max(top);
        }
        for &v in self.y_include.iter().chain(self.guides.iter().map(|(v, _)| v)) {
            y0 = y0.min(v);
            y1 = y1.max(v);
        }
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if !y0.is_finite() {
            (y0, y1) = (0.0, 1.0);
        }
        if x1 - x0 < 1e-12 {
            (x0, x1) = (x0 - 1.0, x1 + 1.0);
        }
        if y1 - y0 < 1e-12 {
            (y0, y1) = (y0 - 1.0, y1 + 1.0);
        }
        let pad = (y1 - y0) * 0.06;
        ((x0, x1), (y0 - pad, y1 + pad))
    }

    /// Each bar's x and total height.
    fn bar_tops(&self) -> Vec<(f64, f64)> {
        let mut tops: Vec<(f64, f64)> = Vec::new();
        for &(x, y) in self.stacked.iter().flat_map(|s| &s.points) {
            if !(x.is_finite() && y.is_finite()) {
                continue;
            }
            match tops.iter_mut().find(|(bx, _)| *bx == x) {
                Some((_, top)) => *top += y.max(0.0),
                None => tops.push((x, y.max(0.0))),
            }
        }
        tops
    }

    /// The chart as an `<svg>` document.
    pub fn to_svg(&self) -> String {
        let ((x0, x1), (y0, y1)) = self.ranges();
        let pw = WIDTH - LEFT - RIGHT;
        let ph = HEIGHT - TOP - BOTTOM;
        let sx = |x: f64| LEFT + (x - x0) / (x1 - x0) * pw;
        let sy = |y: f64| TOP + (1.0 - (y - y0) / (y1 - y0)) * ph;
        let mut o = String::new();
        let _ = write!(
            o,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="12">"#
        );
        let _ = write!(o, r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#);
        let _ = write!(o, r#"<text x="{}" y="22" text-anchor="middle" font-size="15" font-weight="bold">{}</text>"#, WIDTH / 2.0, escape(&self.title));
        // Grid and ticks.
        for t in ticks(y0, y1, 6) {
            let y = sy(t);
            let _ = write!(o, r##"<line x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#e4e4e4"/>"##, LEFT + pw);
            let _ = write!(o, r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#, LEFT - 6.0, y + 4.0, fmt_tick(t));
        }
        for t in ticks(x0, x1, 8) {
            let x = sx(t);
            let _ = write!(o, r##"<line x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{}" stroke="#f0f0f0"/>"##, TOP + ph);
            let _ = write!(o, r#"<text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"#, TOP + ph + 16.0, fmt_tick(t));
        }
        let _ = write!(o, r#"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#);
        let _ = write!(o, r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#, LEFT + pw / 2.0, HEIGHT - 8.0, escape(&self.x_label));
        let _ = write!(o, r#"<text transform="translate(16 {}) rotate(-90)" text-anchor="middle">{}</text>"#, TOP + ph / 2.0, escape(&self.y_label));
        for (v, label) in &self.guides {
            let y = sy(*v);
            let _ = write!(o, r##"<line x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#888" stroke-dasharray="5 4"/>"##, LEFT + pw);
            let _ = write!(o, r##"<text x="{}" y="{:.1}" text-anchor="end" fill="#666">{}</text>"##, LEFT + pw - 4.0, y - 4.0, escape(label));
        }
        // Stacked bars, bottom layer first.
        let mut base: Vec<(f64, f64)> = Vec::new();
        for s in &self.stacked {
            for &(x, y) in &s.points {
                if !(x.is_finite() && y.is_finite()) || y <= 0.0 {
                    continue;
                }
                let b = match base.iter_mut().find(|(bx, _)| *bx == x) {
                    Some(e) => e,
                    None => {
                        base.push((x, 0.0));
                        base.last_mut().expect("just pushed")
                    }
                };
                let (lo, hi) = (b.1, b.1 + y);
                b.1 = hi;
                let w = (sx(x + 0.35) - sx(x - 0.35)).max(1.0);
                let _ = write!(
                    o,
                    r#"<rect class="bar" x="{:.1}" y="{:.1}" width="{w:.1}" height="{:.1}" fill="{}"/>"#,
                    sx(x - 0.35),
                    sy(hi),
                    (sy(lo) - sy(hi)).max(0.0),
                    s.color
                );
            }
        }
        // Curves.
        for s in &self.series {
            let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
            if let Some(errs) = &s.errors {
                for (&(x, y), &e) in s.points.iter().zip(errs) {
                    if x.is_finite() && y.is_finite() && e.is_finite() && e > 0.0 {
                        let (a, b) = (sy((y - e).max(y0)), sy((y + e).min(y1)));
                        let _ = write!(o, r#"<line x1="{0:.1}" x2="{0:.1}" y1="{a:.1}" y2="{b:.1}" stroke="{1}" stroke-opacity="0.5"/>"#, sx(x), s.color);
                    }
                }
            }
            if pts.len() > 1 {
                let path: Vec<String> = pts.iter().map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y))).collect();
                let _ = write!(o, r#"<polyline fill="none" stroke="{}" stroke-width="1.8" points="{}"/>"#, s.color, path.join(" "));
            }
            if s.markers || pts.len() == 1 {
                for &(x, y) in &pts {
                    let _ = write!(o, r#"<circle cx="{:.1}" cy="{:.1}" r="3.2" fill="{}"/>"#, sx(x), sy(y), s.color);
                }
            }
        }
        // Legend.
        for (i, s) in self.series.iter().chain(&self.stacked).enumerate() {
            let y = TOP + 14.0 + 16.0 * i as f64;
            let _ = write!(o, r#"<line x1="{}" x2="{}" y1="{y}" y2="{y}" stroke="{}" stroke-width="3"/>"#, LEFT + 10.0, LEFT + 30.0, s.color);
            let _ = write!(o, r#"<text x="{}" y="{}">{}</text>"#, LEFT + 36.0, y + 4.0, escape(&s.name));
        }
        o.push_str("</svg>\n");
        o
    }
}

/// One row of a rating plot: player, Elo, 95% half-width (infinite = unbounded).
pub struct RatingBar {
    pub name: String,
    pub elo: f64,
    pub ci95: f64,
}

/// A rating list as a forest plot: one row per player in the order given,
/// a dot at its rating and a bar over its 95% interval (dashed across the
/// whole axis where the interval is unbounded).
pub fn rating_bars(title: &str, axis: &str, rows: &[RatingBar]) -> String {
    let row_h = 22.0;
    let left = 220.0;
    let height = TOP + BOTTOM + row_h * rows.len().max(1) as f64;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for r in rows {
        let e = if r.ci95.is_finite() { r.ci95 } else { 0.0 };
        lo = lo.min(r.elo - e);
        hi = hi.max(r.elo + e);
    }
    if !lo.is_finite() || hi - lo < 1e-9 {
        (lo, hi) = (lo.min(0.0) - 50.0, hi.max(0.0) + 50.0);
    }
    let pad = (hi - lo) * 0.05;
    let (x0, x1) = (lo - pad, hi + pad);
    let pw = WIDTH - left - RIGHT;
    let sx = |x: f64| left + (x.clamp(x0, x1) - x0) / (x1 - x0) * pw;
    let mut o = String::new();
    let _ = write!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = write!(o, r#"<rect width="{WIDTH}" height="{height}" fill="white"/>"#);
    let _ = write!(o, r#"<text x="{}" y="22" text-anchor="middle" font-size="15" font-weight="bold">{}</text>"#, WIDTH / 2.0, escape(title));
    let bottom = height - BOTTOM;
    for t in ticks(x0, x1, 6) {
        let x = sx(t);
        let _ = write!(o, r##"<line x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{bottom}" stroke="#e4e4e4"/>"##);
        let _ = write!(o, r#"<text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"#, bottom + 16.0, fmt_tick(t));
    }
    let _ = write!(o, r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#, left + pw / 2.0, height - 8.0, escape(axis));
    for (i, r) in rows.iter().enumerate() {
        let y = TOP + row_h * (i as f64 + 0.5);
        let _ = write!(o, r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#, left - 8.0, y + 4.0, escape(&r.name));
        let (a, b) = if r.ci95.is_finite() { (r.elo - r.ci95, r.elo + r.ci95) } else { (x0, x1) };
        let dash = if r.ci95.is_finite() { "" } else { r#" stroke-dasharray="3 3""# };
        let _ = write!(o, r##"<line class="interval" x1="{:.1}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#1f5fd1" stroke-width="2"{dash}/>"##, sx(a), sx(b));
        let _ = write!(o, r##"<circle cx="{:.1}" cy="{y:.1}" r="4" fill="#1f5fd1"/>"##, sx(r.elo));
    }
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests;
