use super::*;

#[test]
fn ticks_are_round_and_cover_the_range() {
    assert_eq!(ticks(0.0, 10.0, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    let t = ticks(-130.0, 270.0, 6);
    assert!(t.iter().all(|v| (v / 50.0).fract() == 0.0), "{t:?}");
    assert!(t.first().unwrap() >= &-130.0 && t.last().unwrap() <= &270.0);
    assert_eq!(ticks(3.0, 3.0, 5), vec![3.0]);
}

#[test]
fn chart_has_every_series_and_escapes_text() {
    let mut c = Chart::new("Elo <by> generation", "generation", "Elo");
    c.series.push(Series::markers("net & co", "red", vec![(1.0, 0.0), (2.0, 40.0)]));
    c.series.push(Series::line("baseline", "blue", vec![(1.0, 10.0), (2.0, f64::NAN)]));
    c.guides.push((0.0, "gen-0001".into()));
    let svg = c.to_svg();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("Elo &lt;by&gt; generation") && svg.contains("net &amp; co"));
    assert_eq!(svg.matches("<polyline").count(), 1, "a one-point series has no line");
    assert_eq!(svg.matches("<circle").count(), 3);
}

#[test]
fn stacked_bars_pile_up_their_layers() {
    let mut c = Chart::new("Time", "generation", "seconds");
    c.stacked.push(Series::markers("self-play", "blue", vec![(1.0, 30.0), (2.0, 40.0)]));
    c.stacked.push(Series::markers("training", "red", vec![(1.0, 20.0), (2.0, 0.0)]));
    assert_eq!(c.bar_tops(), vec![(1.0, 50.0), (2.0, 40.0)]);
    let svg = c.to_svg();
    assert_eq!(svg.matches(r#"class="bar""#).count(), 3, "a zero segment draws nothing");
    assert!(svg.contains("self-play") && svg.contains("training"));
    // The y axis reaches the tallest bar.
    let ((_, _), (_, y1)) = c.ranges();
    assert!(y1 >= 50.0);
}

#[test]
fn rating_bars_draw_a_row_per_player() {
    let r = |name: &str, elo: f64, ci95: f64| RatingBar { name: name.into(), elo, ci95 };
    let svg = rating_bars("League", "Elo", &[r("a<1>", 120.0, 40.0), r("b", 0.0, 30.0), r("c", -300.0, f64::INFINITY)]);
    assert_eq!(svg.matches(r#"class="interval""#).count(), 3);
    assert_eq!(svg.matches("<circle").count(), 3);
    assert!(svg.contains("a&lt;1&gt;") && svg.contains("stroke-dasharray"), "an unbounded interval is dashed");
}

/// `c.ranges()` equals `x` and `y` to 1e-9.
fn assert_ranges(c: &Chart, x: (f64, f64), y: (f64, f64)) {
    let ((x0, x1), (y0, y1)) = c.ranges();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(x0, x.0) && close(x1, x.1) && close(y0, y.0) && close(y1, y.1), "x {x0}..{x1}, y {y0}..{y1}; expected {x:?}, {y:?}");
}

/// `needle` occurs in `svg` (the SVG shown when it does not).
fn assert_has(svg: &str, needle: &str) {
    assert!(svg.contains(needle), "no {needle} in\n{svg}");
}

#[test]
fn ticks_step_by_one_two_or_five_times_a_power_of_ten() {
    // 400 / 6 = 66.7 a tick: magnitude 10, step 10·10; ceil(-1.3) = -1 to floor(2.7) = 2.
    assert_eq!(ticks(-130.0, 270.0, 6), vec![-100.0, 0.0, 100.0, 200.0]);
    // A raw step over 5 times its power of ten: the next power.
    assert_eq!(ticks(0.0, 1400.0, 2), vec![0.0, 1000.0]);
    // 10 / 5 = 2: magnitude 1, step 2·1.
    assert_eq!(ticks(0.0, 10.0, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    // 60 / 5 = 12: magnitude 10, step 2·10.
    assert_eq!(ticks(0.0, 60.0, 5), vec![0.0, 20.0, 40.0, 60.0]);
    // 100 / 5 = 20: magnitude 10, step 2·10.
    assert_eq!(ticks(0.0, 100.0, 5), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
    // 1 / 5 = 0.2: magnitude 0.1, step 2·0.1.
    assert_eq!(ticks(0.0, 1.0, 5), (0..=5).map(|i| i as f64 * 0.2).collect::<Vec<_>>());
    // 7 / 8 = 0.875: magnitude 0.1, step 10·0.1 = 1.
    assert_eq!(ticks(2.0, 9.0, 8), vec![2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    // 112 / 6 = 18.7: magnitude 10, step 20; the ends are not ticks.
    assert_eq!(ticks(-6.0, 106.0, 6), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
    // Target 0 counts as 1: 10 / 1 = 10, step 1·10.
    assert_eq!(ticks(0.0, 10.0, 0), vec![0.0, 10.0]);
}

#[test]
fn ticks_of_an_empty_reversed_or_unbounded_range_are_its_low_end() {
    assert_eq!(ticks(3.0, 3.0, 5), vec![3.0]);
    assert_eq!(ticks(5.0, 2.0, 5), vec![5.0]);
    assert_eq!(ticks(1.0, f64::NAN, 5), vec![1.0]);
    assert_eq!(ticks(0.0, f64::INFINITY, 5), vec![0.0]);
    let t = ticks(f64::NAN, 1.0, 5);
    assert!(t.len() == 1 && t[0].is_nan(), "{t:?}");
}

#[test]
fn tick_labels_are_short() {
    assert_eq!(fmt_tick(0.0), "0");
    assert_eq!(fmt_tick(3.0), "3");
    assert_eq!(fmt_tick(-40.0), "-40");
    assert_eq!(fmt_tick(2.5), "2.5");
    assert_eq!(fmt_tick(0.125), "0.125");
    // 3 · 0.2 = 0.6000000000000001: three decimals at most, trailing zeros cut.
    assert_eq!(fmt_tick(3.0 * 0.2), "0.6");
    assert_eq!(fmt_tick(1.0 / 3.0), "0.333");
    assert_eq!(fmt_tick(9999.5), "9999.5");
    assert_eq!((fmt_tick(9999.0), fmt_tick(3.0 + 1e-12), fmt_tick(-7.0)), ("9999".into(), "3".into(), "-7".into()));
    // From 10 000 on, thousands with a k.
    assert_eq!(fmt_tick(10_000.0), "10k");
    assert_eq!(fmt_tick(12_000.0), "12k");
    assert_eq!(fmt_tick(-25_000.0), "-25k");
}

#[test]
fn escape_replaces_the_markup_characters_ampersand_first() {
    assert_eq!(escape(r#"a<b & "c">"#), "a&lt;b &amp; &quot;c&quot;&gt;");
    assert_eq!(escape("&lt;"), "&amp;lt;");
    assert_eq!(escape("plain"), "plain");
}

#[test]
fn a_line_has_no_markers_and_a_marker_series_has() {
    let l = Series::line("loss", "black", vec![(1.0, 2.0)]);
    assert_eq!((l.name.as_str(), l.color, l.points.as_slice(), l.errors.is_none(), l.markers), ("loss", "black", &[(1.0, 2.0)][..], true, false));
    let m = Series::markers("elo", "red", vec![(3.0, 4.0)]);
    assert_eq!((m.name.as_str(), m.color, m.points.as_slice(), m.errors.is_none(), m.markers), ("elo", "red", &[(3.0, 4.0)][..], true, true));
}

#[test]
fn an_empty_chart_spans_zero_to_one_padded() {
    // No data: x 0..1, y 0..1 padded by 6% of 1.
    assert_ranges(&Chart::new("t", "x", "y"), (0.0, 1.0), (-0.06, 1.06));
}

#[test]
fn a_single_point_is_widened_by_one_each_way() {
    let mut c = Chart::new("t", "x", "y");
    c.series.push(Series::markers("a", "red", vec![(2.0, 5.0)]));
    // x 2..2 becomes 1..3; y 5..5 becomes 4..6, padded by 0.06·2 = 0.12.
    assert_ranges(&c, (1.0, 3.0), (3.88, 6.12));
}

#[test]
fn a_span_of_1e_12_is_not_widened() {
    let mut c = Chart::new("t", "x", "y");
    c.series.push(Series::line("a", "red", vec![(0.0, 0.0), (1e-12, 1e-12)]));
    // Spans under 1e-12 are widened; this one is kept, and y is padded by 6e-14.
    let ((x0, x1), (y0, y1)) = c.ranges();
    assert_eq!((x0, x1), (0.0, 1e-12));
    assert!((y0 + 6e-14).abs() < 1e-20 && (y1 - 1.06e-12).abs() < 1e-20, "{y0} {y1}");
}

#[test]
fn the_y_range_is_padded_by_six_percent_of_its_span() {
    let mut c = Chart::new("t", "x", "y");
    c.series.push(Series::line("a", "red", vec![(0.0, -50.0), (10.0, 150.0)]));
    // y -50..150: span 200, pad 12.
    assert_ranges(&c, (0.0, 10.0), (-62.0, 162.0));
}

#[test]
fn error_bars_stretch_the_y_range_and_unplottable_points_are_left_out() {
    let mut c = Chart::new("t", "x", "y");
    c.series.push(Series {
        name: "net".into(),
        color: "red",
        points: vec![(1.0, 10.0), (9.0, f64::NAN), (3.0, 20.0), (4.0, 15.0), (5.0, 21.0)],
        // A bar for each of the first four; NaN is none, and (5, 21) has no entry.
        errors: Some(vec![5.0, 100.0, 2.0, f64::NAN]),
        markers: true,
    });
    // x 1..5 (9 has no y); y from 10 - 5 = 5 to 20 + 2 = 22, padded by 0.06·17 = 1.02.
    assert_ranges(&c, (1.0, 5.0), (3.98, 23.02));
}

#[test]
fn bars_reach_down_to_zero_and_half_a_unit_beyond_the_end_bars() {
    let mut c = Chart::new("t", "x", "y");
    c.stacked.push(Series::markers("a", "blue", vec![(1.0, 30.0), (2.0, 40.0)]));
    c.stacked.push(Series::markers("b", "red", vec![(1.0, 20.0), (2.0, 0.0)]));
    // Bars at 1 and 2: x 0.5..2.5; y 0..30 + 20, padded by 3.
    assert_ranges(&c, (0.5, 2.5), (-3.0, 53.0));
}

#[test]
fn guides_and_included_values_stretch_the_y_range() {
    let mut c = Chart::new("t", "x", "y");
    c.series.push(Series::line("a", "red", vec![(0.0, 10.0), (10.0, 20.0)]));
    c.y_include.push(0.0);
    c.guides.push((50.0, "half".into()));
    // y 0..50, padded by 3.
    assert_ranges(&c, (0.0, 10.0), (-3.0, 53.0));
    let mut only = Chart::new("t", "x", "y");
    only.guides.push((0.75, "target".into()));
    only.y_include.extend([0.0, 1.0]);
    assert_ranges(&only, (0.0, 1.0), (-0.06, 1.06));
}

#[test]
fn bar_tops_sum_the_layers_and_skip_unplottable_segments() {
    let mut c = Chart::new("t", "x", "y");
    c.stacked.push(Series::markers("a", "blue", vec![(1.0, 30.0), (2.0, 40.0), (3.0, f64::NAN), (f64::NAN, 5.0)]));
    c.stacked.push(Series::markers("b", "red", vec![(1.0, 20.0), (2.0, -10.0), (4.0, 6.0)]));
    // Bar 1: 30 + 20; bar 2: 40 (a negative segment counts 0); bar 4: 6; none at 3 or NaN.
    assert_eq!(c.bar_tops(), vec![(1.0, 50.0), (2.0, 40.0), (4.0, 6.0)]);
}

/// Markers at generations 2, 4 and 9 with y 0..100 included: x 2..9 maps
/// to pixels 64..624 (80 a unit); y -6..106 (100 padded by 6) to 312..36
/// (276/112 a unit), so y 22, 50 and 78 land on 243, 174 and 105.
fn generations_chart() -> Chart {
    let mut c = Chart::new("Elo <by> generation", "generation", "Elo");
    c.series.push(Series::markers("net", "red", vec![(2.0, 22.0), (4.0, 50.0), (9.0, 78.0)]));
    c.y_include.extend([0.0, 100.0]);
    c
}

#[test]
fn a_series_point_maps_to_its_pixel() {
    let svg = generations_chart().to_svg();
    // x: 64 + (x - 2)/7·560; y: 36 + (1 - (y + 6)/112)·276.
    for circle in [r#"cx="64.0" cy="243.0""#, r#"cx="224.0" cy="174.0""#, r#"cx="624.0" cy="105.0""#] {
        assert_has(&svg, &format!(r#"<circle {circle} r="3.2" fill="red"/>"#));
    }
    assert_eq!(svg.matches("<circle").count(), 3);
    assert_has(&svg, r#"<polyline fill="none" stroke="red" stroke-width="1.8" points="64.0,243.0 224.0,174.0 624.0,105.0"/>"#);
}

#[test]
fn the_frame_and_the_labels_sit_inside_the_margins() {
    let svg = generations_chart().to_svg();
    assert!(svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 360" width="640" height="360""#), "{svg}");
    // The plot: 640 - 64 - 16 = 560 wide, 360 - 36 - 48 = 276 high.
    assert_has(&svg, r#"<rect x="64" y="36" width="560" height="276" fill="none" stroke="black"/>"#);
    assert_has(&svg, r#"<text x="320" y="22" text-anchor="middle" font-size="15" font-weight="bold">Elo &lt;by&gt; generation</text>"#);
    // The x label under the middle of the plot (64 + 280), the y label turned at its middle (36 + 138).
    assert_has(&svg, r#"<text x="344" y="352" text-anchor="middle">generation</text>"#);
    assert_has(&svg, r#"<text transform="translate(16 174) rotate(-90)" text-anchor="middle">Elo</text>"#);
}

#[test]
fn grid_lines_and_labels_sit_at_the_round_ticks() {
    let svg = generations_chart().to_svg();
    // y ticks of -6..106: 0, 20, .., 100 at 36 + (106 - t)/112·276, labels 4 lower.
    for (t, y, label_y) in
        [(0, "297.2", "301.2"), (20, "247.9", "251.9"), (40, "198.6", "202.6"), (60, "149.4", "153.4"), (80, "100.1", "104.1"), (100, "50.8", "54.8")]
    {
        assert_has(&svg, &format!(r##"<line x1="64" x2="624" y1="{y}" y2="{y}" stroke="#e4e4e4"/>"##));
        assert_has(&svg, &format!(r#"<text x="58" y="{label_y}" text-anchor="end">{t}</text>"#));
    }
    assert_eq!(svg.matches("#e4e4e4").count(), 6);
    // x ticks of 2..9: every generation, 80 px apart, labels under the plot (312 + 16).
    for g in 2..=9 {
        let x = format!("{:.1}", 64.0 + 80.0 * (g - 2) as f64);
        assert_has(&svg, &format!(r##"<line x1="{x}" x2="{x}" y1="36" y2="312" stroke="#f0f0f0"/>"##));
        assert_has(&svg, &format!(r#"<text x="{x}" y="328" text-anchor="middle">{g}</text>"#));
    }
    assert_eq!(svg.matches("#f0f0f0").count(), 8);
}

#[test]
fn a_guide_is_a_dashed_line_labelled_at_the_right() {
    let mut c = generations_chart();
    c.guides.push((50.0, "even <50%>".into()));
    let svg = c.to_svg();
    // y 50 is the middle of -6..106: 36 + 138.
    assert_has(&svg, r##"<line x1="64" x2="624" y1="174.0" y2="174.0" stroke="#888" stroke-dasharray="5 4"/>"##);
    assert_has(&svg, r##"<text x="620" y="170.0" text-anchor="end" fill="#666">even &lt;50%&gt;</text>"##);
}

#[test]
fn an_error_bar_spans_the_interval_and_only_finite_positive_ones_are_drawn() {
    let mut c = generations_chart();
    c.series[0].points.extend([(3.0, f64::NAN), (f64::NAN, 40.0)]);
    // 0 and ∞ draw nothing, nor do the points without a position.
    c.series[0].errors = Some(vec![0.0, 14.0, f64::INFINITY, 5.0, 5.0]);
    let svg = c.to_svg();
    // 50 ± 14 at x 4: y 36 at 36 + 70/112·276 = 208.5, y 64 at 36 + 42/112·276 = 139.5.
    assert_has(&svg, r#"<line x1="224.0" x2="224.0" y1="208.5" y2="139.5" stroke="red" stroke-opacity="0.5"/>"#);
    assert_eq!(svg.matches("stroke-opacity").count(), 1, "{svg}");
    // The unplottable points are in neither the line nor the markers.
    assert_has(&svg, r#"points="64.0,243.0 224.0,174.0 624.0,105.0""#);
    assert_eq!(svg.matches("<circle").count(), 3);
}

#[test]
fn a_line_has_markers_only_where_it_has_a_single_point() {
    let mut c = generations_chart();
    c.series.clear();
    c.series.push(Series::line("three", "red", vec![(2.0, 22.0), (4.0, 50.0), (9.0, 78.0)]));
    c.series.push(Series::line("one", "blue", vec![(5.0, 50.0)]));
    c.series.push(Series::markers("one marked", "green", vec![(4.0, 50.0)]));
    let svg = c.to_svg();
    assert_eq!(svg.matches("<polyline").count(), 1, "only a line of two points or more is drawn");
    assert_eq!(svg.matches("<circle").count(), 2);
    assert_has(&svg, r#"<circle cx="304.0" cy="174.0" r="3.2" fill="blue"/>"#);
    assert_has(&svg, r#"<circle cx="224.0" cy="174.0" r="3.2" fill="green"/>"#);
}

#[test]
fn the_legend_has_a_row_per_series_then_per_layer() {
    let mut c = generations_chart();
    c.series.push(Series::line("base", "blue", vec![(2.0, 10.0), (9.0, 10.0)]));
    c.stacked.push(Series::markers("train <s>", "green", vec![(3.0, 5.0)]));
    let svg = c.to_svg();
    // Rows 16 apart from 36 + 14, text 4 lower, right of a swatch at 74..94.
    for (y, color, name) in [(50, "red", "net"), (66, "blue", "base"), (82, "green", "train &lt;s&gt;")] {
        assert_has(&svg, &format!(r#"<line x1="74" x2="94" y1="{y}" y2="{y}" stroke="{color}" stroke-width="3"/>"#));
        assert_has(&svg, &format!(r#"<text x="100" y="{}">{name}</text>"#, y + 4));
    }
}

#[test]
fn stacked_segments_map_to_their_rects() {
    let mut c = Chart::new("Time", "generation", "minutes");
    c.stacked.push(Series::markers("self-play", "blue", vec![(1.0, 22.0), (2.0, 50.0), (f64::NAN, 5.0), (3.0, f64::NAN)]));
    c.stacked.push(Series::markers("training", "green", vec![(1.0, 28.0), (2.0, 0.0)]));
    c.y_include.push(100.0);
    let svg = c.to_svg();
    // x 0.5..2.5 over 560 px: 280 a unit, a bar 0.7 wide = 196 px from x - 0.35
    // (1: 64 + 0.15·280 = 106, 2: 64 + 1.15·280 = 386). y -6..106 as in
    // `generations_chart`: 0 at 297.2, 22 at 243, 50 at 174.
    assert_has(&svg, r#"<rect class="bar" x="106.0" y="243.0" width="196.0" height="54.2" fill="blue"/>"#);
    assert_has(&svg, r#"<rect class="bar" x="386.0" y="174.0" width="196.0" height="123.2" fill="blue"/>"#);
    // The upper layer sits on the lower one: 22..50 at bar 1.
    assert_has(&svg, r#"<rect class="bar" x="106.0" y="174.0" width="196.0" height="69.0" fill="green"/>"#);
    assert_eq!(svg.matches(r#"class="bar""#).count(), 3, "a zero or unplottable segment draws nothing:\n{svg}");
}

fn rating(name: &str, elo: f64, ci95: f64) -> RatingBar {
    RatingBar { name: name.into(), elo, ci95 }
}

#[test]
fn rating_rows_map_to_their_pixels() {
    let svg = rating_bars("League <1>", "Elo", &[rating("a", 55.0, 45.0), rating("b", -55.0, 45.0), rating("c", 0.0, f64::INFINITY)]);
    // 36 + 48 + 3 rows of 22.
    assert!(svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 150" width="640" height="150""#), "{svg}");
    assert_has(&svg, "League &lt;1&gt;");
    // Intervals -100..100 (c's unbounded one counts as its point), padded by
    // 5%: -110..110 over 220..624, 404/220 px an Elo (55 Elo = 101 px).
    // Rows at 36 + 22·(i + 0.5), names right-aligned at 212, 4 lower.
    let rows = [
        ("a", "47.0", "51.0", "440.4", "605.6", "523.0", ""),
        ("b", "69.0", "73.0", "238.4", "403.6", "321.0", ""),
        ("c", "91.0", "95.0", "220.0", "624.0", "422.0", r#" stroke-dasharray="3 3""#),
    ];
    for (name, y, text_y, x1, x2, cx, dash) in rows {
        assert_has(&svg, &format!(r#"<text x="212" y="{text_y}" text-anchor="end">{name}</text>"#));
        assert_has(&svg, &format!(r##"<line class="interval" x1="{x1}" x2="{x2}" y1="{y}" y2="{y}" stroke="#1f5fd1" stroke-width="2"{dash}/>"##));
        assert_has(&svg, &format!(r##"<circle cx="{cx}" cy="{y}" r="4" fill="#1f5fd1"/>"##));
    }
    assert_eq!(svg.matches("stroke-dasharray").count(), 1);
    // Ticks every 50 over -110..110, grid to the bottom of the rows (150 - 48), labels 16 under it.
    for (t, x) in [(-100, "238.4"), (-50, "330.2"), (0, "422.0"), (50, "513.8"), (100, "605.6")] {
        assert_has(&svg, &format!(r##"<line x1="{x}" x2="{x}" y1="36" y2="102" stroke="#e4e4e4"/>"##));
        assert_has(&svg, &format!(r#"<text x="{x}" y="118" text-anchor="middle">{t}</text>"#));
    }
    assert_eq!(svg.matches("#e4e4e4").count(), 5);
    assert_has(&svg, r#"<text x="422" y="142" text-anchor="middle">Elo</text>"#);
}

#[test]
fn a_rating_axis_without_width_is_widened_around_zero() {
    let svg = rating_bars("t", "Elo", &[rating("only", 200.0, f64::INFINITY)]);
    // 200..200 becomes min(200, 0) - 50 .. max(200, 0) + 50 = -50..250, padded
    // by 15: -65..265 over 404 px; 200 at 220 + 265/330·404 = 544.4.
    assert_has(&svg, r#"viewBox="0 0 640 106""#);
    assert_has(&svg, r##"<circle cx="544.4" cy="47.0" r="4" fill="#1f5fd1"/>"##);
    assert_has(&svg, r##"<line class="interval" x1="220.0" x2="624.0" y1="47.0" y2="47.0""##);
    // Ticks every 100 (330 / 6 = 55 a tick): 0 at 220 + 65/330·404 = 299.6.
    assert_has(&svg, r#"<text x="299.6" y="74" text-anchor="middle">0</text>"#);
}

#[test]
fn an_empty_rating_list_draws_an_axis_around_zero() {
    let svg = rating_bars("t", "Elo", &[]);
    // Room for one row; -50..50 padded by 5: 0 in the middle (220 + 202).
    assert_has(&svg, r#"viewBox="0 0 640 106""#);
    assert_has(&svg, r##"<line x1="422.0" x2="422.0" y1="36" y2="58" stroke="#e4e4e4"/>"##);
    assert_eq!(svg.matches("<circle").count(), 0);
}

#[test]
fn a_rating_axis_of_1e_9_is_not_widened() {
    let svg = rating_bars("t", "Elo", &[rating("x", 0.0, 0.0), rating("y", 1e-9, 0.0)]);
    // Only spans under 1e-9 are widened: -5e-11..1.05e-9, so 0 sits at
    // 220 + 0.05/1.1·404 = 238.4 and 1e-9 at 220 + 1.05/1.1·404 = 605.6.
    assert_has(&svg, r##"<circle cx="238.4" cy="47.0" r="4" fill="#1f5fd1"/>"##);
    assert_has(&svg, r##"<circle cx="605.6" cy="69.0" r="4" fill="#1f5fd1"/>"##);
}
