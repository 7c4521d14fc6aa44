//! Bar charts drawn on the server as SVG (`charts.html` draws what this module measures): no
//! script, no inline style, so they pass the pages' CSP. Each chart also carries its numbers for
//! a table, which screen readers read instead of the picture.
use chrono::NaiveDate;
use serde::Serialize;

/// Width of every chart's drawing, in SVG units: its size in pixels where there is room, about
/// a phone's width, so the text stays readable when it shrinks.
const WIDTH: f64 = 360.0;
/// Horizontal bars: where the bars start (labels to the left) and their longest length.
const BAR_START: f64 = 122.0;
const BAR_SPAN: f64 = 196.0;
/// A digit's width at the values' 13px and the scale's 11px, as the page's sans-serif draws
/// them (about 0.56 em), rounded up: text the drawing makes room for by its length.
const DIGIT_13PX: f64 = 7.5;
const DIGIT_11PX: f64 = 6.5;
const ROW: f64 = 26.0;
/// Bars drawn at the most; the rest are summed in one "other" bar (the table lists them all).
const MOST_BARS: usize = 12;
/// Longest label drawn, in characters (the table has the whole).
const LABEL_CHARS: usize = 16;
/// Columns (one a day): the drawing's height, the baseline and the tallest column.
const COLUMNS_HEIGHT: f64 = 190.0;
const BASELINE: f64 = 160.0;
const COLUMN_SPAN: f64 = 135.0;

#[derive(Debug, Serialize)]
pub struct Chart {
    /// Unique on the page: ids of the chart's elements.
    pub id: &'static str,
    pub title: String,
    pub width: f64,
    /// The heading of the table's first column.
    pub label_head: &'static str,
    pub height: f64,
    pub total: i64,
    /// Every value, as the table lists them.
    pub rows: Vec<Row>,
    pub bars: Vec<Bar>,
    /// Labels under columns and the scale's top.
    pub ticks: Vec<Tick>,
    /// Columns (one a day) rather than horizontal bars.
    pub columns: bool,
    /// Where columns stand.
    pub baseline: f64,
}

#[derive(Debug, Serialize)]
pub struct Row {
    pub label: String,
    pub value: i64,
}

#[derive(Debug, Serialize)]
pub struct Bar {
    pub label: String,
    pub value: i64,
    /// The label as drawn (shortened).
    pub short: String,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    /// Where the label and the value are written.
    pub label_y: f64,
    pub value_x: f64,
    pub value_y: f64,
}

#[derive(Debug, Serialize)]
pub struct Tick {
    pub label: String,
    pub x: f64,
    pub y: f64,
    /// SVG `text-anchor`: start, middle or end.
    pub anchor: &'static str,
}

fn round(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// How many digits `n` is written with (a minus sign counts as one).
fn digits(n: i64) -> f64 {
    n.to_string().len() as f64
}

fn shortened(label: &str) -> String {
    if label.chars().count() <= LABEL_CHARS {
        label.to_owned()
    } else {
        let head: String = label.chars().take(LABEL_CHARS - 1).collect();
        format!("{head}…")
    }
}

/// Horizontal bars, largest first; `counts` as (label, value).
pub fn ranked(
    id: &'static str,
    title: &str,
    label_head: &'static str,
    counts: impl IntoIterator<Item = (String, i64)>,
) -> Chart {
    let mut counts: Vec<(String, i64)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    bars(id, title, label_head, counts)
}

/// Horizontal bars in the given order; `counts` as (label, value).
pub fn bars(
    id: &'static str,
    title: &str,
    label_head: &'static str,
    counts: impl IntoIterator<Item = (String, i64)>,
) -> Chart {
    let rows: Vec<Row> = counts
        .into_iter()
        .map(|(label, value)| Row { label, value })
        .collect();
    let mut drawn: Vec<(String, i64)> = rows
        .iter()
        .take(MOST_BARS)
        .map(|r| (r.label.clone(), r.value))
        .collect();
    if rows.len() > MOST_BARS {
        let rest: i64 = rows[MOST_BARS..].iter().map(|r| r.value).sum();
        drawn.push((format!("{} others", rows.len() - MOST_BARS), rest));
    }
    let max = drawn.iter().map(|(_, v)| *v).max().unwrap_or(0).max(1) as f64;
    // The longest bar leaves room for its value to the right (a million has 7 digits), so no
    // value runs off the drawing.
    let value_width = 6.0 + digits(max as i64) * DIGIT_13PX;
    let span = BAR_SPAN.min(WIDTH - BAR_START - value_width);
    let bars = drawn
        .into_iter()
        .enumerate()
        .map(|(i, (label, value))| {
            let top = i as f64 * ROW + 4.0;
            let width = round(span * value as f64 / max).max(1.0);
            Bar {
                short: shortened(&label),
                label,
                value,
                x: BAR_START,
                y: top,
                width,
                height: ROW - 8.0,
                label_y: top + 14.0,
                value_x: round(BAR_START + width + 6.0),
                value_y: top + 14.0,
            }
        })
        .collect::<Vec<_>>();
    Chart {
        id,
        title: title.to_owned(),
        width: WIDTH,
        label_head,
        height: (bars.len().max(1) as f64 * ROW + 4.0),
        total: rows.iter().map(|r| r.value).sum(),
        rows,
        bars,
        ticks: Vec::new(),
        columns: false,
        baseline: 0.0,
    }
}

/// One column a day, oldest first; every seventh day (and the last) is labelled, and so is the
/// tallest column's value at the top of the scale.
pub fn days(id: &'static str, title: &str, counts: &[(NaiveDate, i64)]) -> Chart {
    let max = counts.iter().map(|(_, v)| *v).max().unwrap_or(0).max(1) as f64;
    // The scale's label stands left of the columns, right-aligned: the margin fits its digits
    // (`2907` drawn in a fixed 24 units showed as `907`).
    let left = (digits(max as i64) * DIGIT_11PX + 8.0).max(24.0);
    let right = 18.0;
    let slot = (WIDTH - left - right) / counts.len().max(1) as f64;
    let last = counts.len().saturating_sub(1);
    let mut ticks = vec![Tick {
        label: (max as i64).to_string(),
        x: left - 4.0,
        y: BASELINE - COLUMN_SPAN + 4.0,
        anchor: "end",
    }];
    let bars = counts
        .iter()
        .enumerate()
        .map(|(i, (day, value))| {
            let height = round(COLUMN_SPAN * *value as f64 / max);
            let x = round(left + i as f64 * slot + slot * 0.15);
            let middle = round(left + (i as f64 + 0.5) * slot);
            if (last - i).is_multiple_of(7) {
                ticks.push(Tick {
                    label: day.format("%b %-d").to_string(),
                    x: middle,
                    y: BASELINE + 18.0,
                    anchor: "middle",
                });
            }
            Bar {
                label: day.format("%Y-%m-%d").to_string(),
                short: day.format("%b %-d").to_string(),
                value: *value,
                x,
                y: round(BASELINE - height),
                width: round(slot * 0.7),
                height,
                label_y: BASELINE + 18.0,
                value_x: middle,
                value_y: round(BASELINE - height - 4.0),
            }
        })
        .collect::<Vec<_>>();
    Chart {
        id,
        title: title.to_owned(),
        width: WIDTH,
        label_head: "Day",
        height: COLUMNS_HEIGHT,
        total: counts.iter().map(|(_, v)| v).sum(),
        rows: counts
            .iter()
            .map(|(day, value)| Row {
                label: day.format("%Y-%m-%d").to_string(),
                value: *value,
            })
            .collect(),
        bars,
        ticks,
        columns: true,
        baseline: BASELINE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_largest_first_and_scaled_to_the_largest() {
        let c = ranked(
            "t",
            "T",
            "Kind",
            [
                ("a".to_owned(), 5),
                ("b".to_owned(), 10),
                ("c".to_owned(), 0),
            ],
        );
        let drawn: Vec<(&str, f64)> = c.bars.iter().map(|b| (b.label.as_str(), b.width)).collect();
        assert_eq!(drawn, [("b", BAR_SPAN), ("a", BAR_SPAN / 2.0), ("c", 1.0)]);
        assert_eq!(c.total, 15);
    }

    #[test]
    fn a_long_value_keeps_its_room_right_of_the_longest_bar() {
        let c = ranked("t", "T", "Source", [("web".to_owned(), 1_000_000)]);
        let bar = &c.bars[0];
        let value_end = bar.value_x + 7.0 * DIGIT_13PX;
        assert!(value_end <= WIDTH, "value ends at {value_end}");
    }

    #[test]
    fn the_scale_label_fits_left_of_the_columns() {
        let first: NaiveDate = "2026-03-01".parse().unwrap();
        let counts: Vec<(NaiveDate, i64)> =
            first.iter_days().take(30).map(|d| (d, 2_907)).collect();
        let c = days("d", "D", &counts);
        let top = &c.ticks[0];
        assert_eq!(top.label, "2907");
        assert_eq!(top.anchor, "end");
        assert!(
            top.x - 4.0 * DIGIT_11PX >= 0.0,
            "label starts at {}",
            top.x - 4.0 * DIGIT_11PX
        );
        assert!(
            c.bars[0].x > top.x,
            "the first column stands right of the label"
        );
    }

    #[test]
    fn many_values_draw_the_largest_and_sum_the_rest_but_list_them_all() {
        let c = ranked(
            "t",
            "T",
            "State",
            (0..20).map(|i| (format!("S{i:02}"), 20 - i)),
        );
        assert_eq!(c.rows.len(), 20);
        assert_eq!(c.bars.len(), MOST_BARS + 1);
        let other = c.bars.last().unwrap();
        assert_eq!(other.label, "8 others");
        assert_eq!(other.value, (1..=8).sum::<i64>());
    }

    #[test]
    fn a_column_a_day_with_every_seventh_labelled_from_the_last() {
        let first: NaiveDate = "2026-03-01".parse().unwrap();
        let counts: Vec<(NaiveDate, i64)> = first
            .iter_days()
            .take(30)
            .enumerate()
            .map(|(i, d)| (d, i as i64 % 3))
            .collect();
        let c = days("d", "D", &counts);
        assert_eq!(c.bars.len(), 30);
        assert_eq!(c.ticks.len(), 6, "the scale's top and five days");
        assert_eq!(c.ticks[0].label, "2");
        assert_eq!(c.ticks.last().unwrap().label, "Mar 30");
        let tallest = c.bars.iter().map(|b| b.height).fold(0.0, f64::max);
        assert_eq!(tallest, COLUMN_SPAN);
        assert!(c
            .bars
            .iter()
            .all(|b| (b.y + b.height - BASELINE).abs() < 0.01));
    }
}
