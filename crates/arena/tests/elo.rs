//! Elo, interval, SPRT and rating-fit arithmetic on known values.

use mancala_arena::elo::{MAX_ELO, Sprt, SprtDecision, Wdl, elo_from_score, elo_interval, score_from_elo};
use mancala_arena::fit_ratings;

fn wdl(wins: u32, draws: u32, losses: u32) -> Wdl {
    Wdl { wins, draws, losses }
}

#[test]
fn elo_of_known_scores() {
    assert_eq!(elo_from_score(0.5), 0.0);
    // -400 log10(1/0.75 - 1) = 400 log10(3) = 190.848...
    assert!((elo_from_score(0.75) - 190.848_501_887).abs() < 1e-6);
    assert!((elo_from_score(0.25) + 190.848_501_887).abs() < 1e-6);
    // 10:1 odds are 400 points.
    assert!((elo_from_score(10.0 / 11.0) - 400.0).abs() < 1e-9);
    assert_eq!(elo_from_score(1.0), MAX_ELO);
    assert_eq!(elo_from_score(0.0), -MAX_ELO);
    for elo in [-600.0, -50.0, 0.0, 12.5, 300.0] {
        assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-9, "{elo}");
    }
}

#[test]
fn rounding_for_display_has_no_negative_zero() {
    assert_eq!(format!("{:+.0}", mancala_arena::elo::rounded(-0.3)), "+0");
    assert_eq!(format!("{:+.0}", mancala_arena::elo::rounded(-0.6)), "-1");
}

#[test]
fn score_counts_draws_half() {
    assert_eq!(wdl(3, 2, 5).score(), 0.4);
    assert_eq!(wdl(3, 2, 5).flipped(), wdl(5, 2, 3));
    assert_eq!(wdl(0, 0, 0).score(), 0.5);
}

#[test]
fn interval_for_many_games_is_the_normal_one() {
    // 750 wins, 250 losses: s = 0.75, per-game sd = 0.433, se = 0.0137.
    let (elo, lo, hi) = elo_interval(wdl(750, 0, 250));
    assert!((elo - 190.85).abs() < 0.01);
    let se = (0.75f64 * 0.25 / 1000.0).sqrt();
    let (want_lo, want_hi) = (elo_from_score(0.75 - 1.96 * se), elo_from_score(0.75 + 1.96 * se));
    assert!((lo - want_lo).abs() < 3.0, "{lo} vs {want_lo}");
    assert!((hi - want_hi).abs() < 3.0, "{hi} vs {want_hi}");
    // Draws shrink the interval at the same score.
    let (_, lo_d, hi_d) = elo_interval(wdl(500, 500, 0));
    let (_, lo_w, hi_w) = elo_interval(wdl(750, 0, 250));
    assert!(hi_d - lo_d < hi_w - lo_w);
}

#[test]
fn interval_is_symmetric_and_shrinks_with_games() {
    let (e, lo, hi) = elo_interval(wdl(20, 10, 20));
    assert_eq!(e, 0.0);
    assert!((lo + hi).abs() < 1e-9);
    let (_, lo4, hi4) = elo_interval(wdl(80, 40, 80));
    assert!(hi4 - lo4 < 0.6 * (hi - lo));
}

#[test]
fn interval_at_the_edges_stays_honest() {
    // 40 wins of 40: the Wilson lower bound n/(n+z^2) = 0.912, about +408.
    let (elo, lo, hi) = elo_interval(wdl(40, 0, 0));
    assert_eq!(elo, MAX_ELO);
    assert_eq!(hi, MAX_ELO);
    assert!((lo - elo_from_score(40.0 / (40.0 + 1.96f64.powi(2)))).abs() < 1.0, "{lo}");
    let (elo, lo, hi) = elo_interval(wdl(0, 0, 40));
    assert_eq!((elo, lo), (-MAX_ELO, -MAX_ELO));
    assert!(hi < -300.0);
    // All draws: centred on 0 with a non-zero width.
    let (elo, lo, hi) = elo_interval(wdl(0, 40, 0));
    assert_eq!(elo, 0.0);
    assert!(lo < -10.0 && hi > 10.0);
}

#[test]
fn sprt_bounds_and_parse() {
    let sprt = Sprt::new(0.0, 10.0);
    let (lower, upper) = sprt.bounds();
    assert!((lower - (0.05f64 / 0.95).ln()).abs() < 1e-12);
    assert!((upper - (0.95f64 / 0.05).ln()).abs() < 1e-12);
    assert_eq!(Sprt::parse("0, 10").unwrap(), sprt);
    assert_eq!(Sprt::parse("-5,5,0.1,0.2").unwrap(), Sprt { elo0: -5.0, elo1: 5.0, alpha: 0.1, beta: 0.2 });
    assert!(Sprt::parse("10,0").unwrap_err().to_string().contains("elo0 (10) must be below elo1 (0)"));
    assert!(Sprt::parse("0,10,1.5,0.05").unwrap_err().to_string().contains("alpha = 1.5"));
    assert!(Sprt::parse("0,x").unwrap_err().to_string().contains("'x' is not a number"));
    assert!(Sprt::parse("0,10,0.05").is_err());
}

#[test]
fn sprt_llr_matches_the_normal_formula() {
    let sprt = Sprt::new(0.0, 50.0);
    let w = wdl(60, 20, 20);
    let (s0, s1) = (0.5, score_from_elo(50.0));
    let s: f64 = 0.7;
    let var = (60.0 * 0.3f64.powi(2) + 20.0 * 0.2f64.powi(2) + 20.0 * 0.7f64.powi(2)) / 100.0;
    let want = 100.0 * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var);
    assert!((sprt.llr(w) - want).abs() < 1e-9);
    assert_eq!(sprt.llr(wdl(0, 0, 0)), 0.0);
}

#[test]
fn sprt_decides_both_ways_and_waits_in_between() {
    let sprt = Sprt::new(0.0, 50.0);
    // A clear winner: H1.
    assert_eq!(sprt.decision(wdl(70, 10, 20)), SprtDecision::H1);
    // Exactly even over many games: H0 (the truth is nearer elo0).
    assert_eq!(sprt.decision(wdl(300, 200, 300)), SprtDecision::H0);
    // A few games say nothing.
    assert_eq!(sprt.decision(wdl(3, 2, 3)), SprtDecision::None);
    // Every game alike still decides (the variance has a floor).
    assert_eq!(sprt.decision(wdl(30, 0, 0)), SprtDecision::H1);
}

#[test]
fn ratings_recover_known_gaps() {
    // B scores 75% against A (+190.8), C scores 75% against B; A-C consistent at 90%
    // (+381.7 = 2 x 190.8 means 0.9 score).
    let s_ac = score_from_elo(2.0 * 190.848_501_887);
    let n = 100_000u32;
    let results = vec![
        (0, 1, wdl(n / 4, 0, 3 * n / 4)),
        (1, 2, wdl(n / 4, 0, 3 * n / 4)),
        (0, 2, wdl((f64::from(n) * (1.0 - s_ac)).round() as u32, 0, (f64::from(n) * s_ac).round() as u32)),
    ];
    let r = fit_ratings(3, &results);
    assert_eq!(r[0], 0.0);
    assert!((r[1] - 190.85).abs() < 1.0, "{r:?}");
    assert!((r[2] - 381.7).abs() < 1.0, "{r:?}");
}

#[test]
fn ratings_stay_finite_for_a_clean_sweep() {
    let r = fit_ratings(2, &[(0, 1, wdl(0, 0, 20))]);
    // 20 losses plus one virtual draw: score 0.5/21 for agent 0.
    assert!((r[1] - elo_from_score(1.0 - 0.5 / 21.0)).abs() < 1e-6, "{r:?}");
    assert!(r[1].is_finite());
}
