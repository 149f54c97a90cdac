//! The chart: insert rate against rows inserted, one line per kind.

use std::path::Path;

use plotters::prelude::*;

use crate::bench::Measured;
use crate::error::{Context, Error, Result, chain};
use crate::kind::Kind;

/// A kind's line: its colour, and whether it is dashed. Ids the server
/// makes have the colour of the same ids made by the client, dashed;
/// bigserial, always the server's, is solid.
fn style(kind: Kind) -> (RGBColor, bool) {
    let colour = match kind {
        Kind::Guid | Kind::SqlGuid => RGBColor(0x1f, 0x77, 0xb4),
        Kind::GuidFleet => RGBColor(0xff, 0x7f, 0x0e),
        Kind::Fleet => RGBColor(0x2c, 0xa0, 0x2c),
        Kind::Luid | Kind::SqlLuid => RGBColor(0xd6, 0x27, 0x28),
        Kind::UuidV4 | Kind::SqlUuidV4 => RGBColor(0x94, 0x67, 0xbd),
        Kind::UuidV7 | Kind::SqlUuidV7 => RGBColor(0x8c, 0x56, 0x4b),
        Kind::Bigserial => RGBColor(0xe3, 0x77, 0xc2),
        Kind::FleetLuidNode => RGBColor(0x7f, 0x7f, 0x7f),
        Kind::FleetPartitioned => RGBColor(0xbc, 0xbd, 0x22),
    };
    (colour, kind.server_made() && kind != Kind::Bigserial)
}

/// Writes an SVG of each kind's rows/s per span of `span` rows.
pub fn write(path: &Path, results: &[Measured], span: u64, title: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).context(|| format!("creating {}", dir.display()))?;
    }
    draw(path, results, span, title).map_err(|e| {
        Error::msg(format!(
            "writing the chart {}: {}",
            path.display(),
            chain(e.as_ref())
        ))
    })
}

fn draw(
    path: &Path,
    results: &[Measured],
    span: u64,
    title: &str,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let series: Vec<(&Measured, Vec<(u64, f64)>)> =
        results.iter().map(|m| (m, m.rates(span))).collect();
    let max_rows = results.iter().map(|m| m.rows).max().unwrap_or(1) as f64;
    let max_rate = series
        .iter()
        .flat_map(|(_, r)| r.iter().map(|p| p.1))
        .fold(1.0, f64::max);
    // Millions of rows on the axis for a full run, thousands for a short one.
    let (unit, suffix) = if max_rows >= 1e6 {
        (1e6, "M")
    } else {
        (1e3, "k")
    };

    let root = SVGBackend::new(path, (1000, 540)).into_drawing_area();
    root.fill(&WHITE)?;
    // The legend gets a column of its own, so it hides no line.
    let (plot, legend) = root.split_horizontally(820);
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..max_rows / unit, 0.0..max_rate * 1.05 / 1e3)?;
    chart
        .configure_mesh()
        .x_desc(format!("rows inserted ({suffix})"))
        .y_desc("insert rate (thousand rows/s)")
        .x_label_formatter(&|x| axis_label(*x))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .draw()?;
    for (i, (m, rates)) in series.iter().enumerate() {
        let (colour, dashed) = style(m.kind);
        let points = rates
            .iter()
            .map(|&(rows, rate)| (rows as f64 / unit, rate / 1e3));
        let y = 60 + 26 * i as i32;
        if dashed {
            chart.draw_series(DashedLineSeries::new(points, 9, 5, colour.stroke_width(2)))?;
            for x in [5, 19, 33] {
                legend.draw(&PathElement::new(
                    [(x, y), ((x + 9).min(35), y)],
                    colour.stroke_width(3),
                ))?;
            }
        } else {
            chart.draw_series(LineSeries::new(points, colour.stroke_width(2)))?;
            legend.draw(&PathElement::new([(5, y), (35, y)], colour.stroke_width(3)))?;
        }
        legend.draw(&Text::new(
            m.kind.name(),
            (42, y - 8),
            ("sans-serif", 16).into_font(),
        ))?;
    }
    root.present()?;
    Ok(())
}

/// A tick label without float noise: 0.6, not 0.6000000000000001.
fn axis_label(x: f64) -> String {
    let text = format!("{x:.2}");
    match text.trim_end_matches('0').trim_end_matches('.') {
        "" => "0".to_string(),
        t => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_line_of_its_own() {
        let styles: Vec<_> = Kind::ALL.iter().map(|&k| style(k)).collect();
        for (i, a) in styles.iter().enumerate() {
            for (j, b) in styles.iter().enumerate().skip(i + 1) {
                assert_ne!(a, b, "{:?} and {:?}", Kind::ALL[i], Kind::ALL[j]);
            }
        }
        // The server's ids look like the client's, dashed.
        assert_eq!(style(Kind::SqlGuid), (style(Kind::Guid).0, true));
        assert_eq!(style(Kind::SqlLuid), (style(Kind::Luid).0, true));
        assert!(!style(Kind::Bigserial).1);
        // The legend's column holds every kind.
        assert!(60 + 26 * Kind::ALL.len() < 540);
    }

    #[test]
    fn axis_labels_drop_float_noise() {
        assert_eq!(super::axis_label(0.6000000000000001), "0.6");
        assert_eq!(super::axis_label(1.9999999999999998), "2");
        assert_eq!(super::axis_label(0.0), "0");
        assert_eq!(super::axis_label(150.0), "150");
    }
}
