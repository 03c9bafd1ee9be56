//! `mancala-zero plot RUN`: the run's Elo against each reference and its loss curves, drawn
//! from `metrics.jsonl` into one PNG with plotters (no Python needed). The run is read
//! through its store, so a run on S3 plots as one in a directory.

use std::path::PathBuf;

use anyhow::{Context, bail};
use mancala_store::Store;
use mancala_train::layout;
use plotters::prelude::*;

/// Arguments of `mancala-zero plot`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The run: its directory (checkpoints/NAME) or store URL (s3://BUCKET/PREFIX, ...).
    pub run: String,
    /// Output PNG (default RUN/curves.png for a directory, ./curves.png for another store).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

fn panel(
    area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    title: &str,
    lines: &[(String, Vec<(f64, f64)>)],
) -> anyhow::Result<()> {
    let pts = lines.iter().flat_map(|(_, v)| v.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return Ok(());
    }
    if x1 - x0 < 1.0 {
        x1 = x0 + 1.0;
    }
    let pad = ((y1 - y0) * 0.05).max(1e-3);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 22))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))?;
    chart.configure_mesh().x_desc("iteration").draw()?;
    for (k, (name, v)) in lines.iter().enumerate() {
        let color = Palette99::pick(k).to_rgba();
        chart
            .draw_series(LineSeries::new(v.iter().copied(), color.stroke_width(2)))?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let store = Store::open(&args.run)?;
    if !store.exists(layout::CONFIG)? {
        bail!("no run at {}: it has no {}", args.run, layout::CONFIG);
    }
    let (series, skipped) = mancala_web::runs::curves(&store)?;
    if skipped > 0 {
        eprintln!("{}: skipped {skipped} lines that are not a record", store.describe(layout::METRICS));
    }
    if series.is_empty() {
        bail!("{} has no metrics yet", store.describe(layout::METRICS));
    }
    let pick = |prefix: &str| -> Vec<(String, Vec<(f64, f64)>)> {
        series.iter().filter_map(|(k, v)| Some((k.strip_prefix(prefix)?.to_string(), v.clone()))).collect()
    };
    let out = args.out.unwrap_or_else(|| store.local_dir().unwrap_or_default().join("curves.png"));
    {
        let root = BitMapBackend::new(&out, (1200, 900)).into_drawing_area();
        root.fill(&WHITE)?;
        let parts = root.split_evenly((2, 1));
        panel(&parts[0], "Elo of the best model against the references", &pick("elo/"))?;
        panel(&parts[1], "training losses", &pick("loss/"))?;
        root.present().with_context(|| format!("writing {}", out.display()))?;
    }
    println!("wrote {}", out.display());
    Ok(())
}
