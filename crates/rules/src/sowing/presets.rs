//! The presets written as descriptions, and the choice of a hand-written engine for a
//! description that equals a preset.

use crate::PRESETS;
use crate::any::{AnyGame, parse_rules};
use crate::game::Game;
use crate::options::RulesSpec;

use super::description::{
    BoardDesc, CaptureDesc, CaptureFrom, CaptureOn, Cross, CycleDesc, Description, Direction, EndDesc, FORMAT,
    GrandSlam, MoveDesc, NoMove, Origin, Rules, Score, Singletons, SowFrom, SowingDesc, SowingTo,
};

/// The value of option `key` in a canonical rules string.
fn option<'a>(spec: &RulesSpec<'a>, key: &str) -> &'a str {
    spec.options.iter().find(|(k, _)| *k == key).map_or("", |(_, v)| *v)
}

fn number<T: std::str::FromStr + Default>(spec: &RulesSpec<'_>, key: &str) -> T {
    option(spec, key).parse().unwrap_or_default()
}

/// The description of a preset game with its options (any option values, not only the
/// presets' defaults). Match play (Ba-awa's `match=true`) is not a rule of one game and is
/// left out.
pub fn preset_description(game: &AnyGame) -> Description {
    if let AnyGame::Described(g) = game {
        return g.description().clone();
    }
    let rules = game.rules_string();
    let spec = RulesSpec::parse(&rules, PRESETS).expect("a canonical rules string reads back");
    let base = |name: &str, board: BoardDesc| Description {
        format: FORMAT,
        name: name.to_string(),
        title: String::new(),
        origin: String::new(),
        about: String::new(),
        sources: Vec::new(),
        board,
        moves: MoveDesc::default(),
        sowing: SowingDesc::default(),
        capture: CaptureDesc::default(),
        end: EndDesc::default(),
        special: Vec::new(),
    };
    match game {
        AnyGame::Oware(g) => {
            let o = g.options();
            let mut d = base(
                g.preset_name().unwrap_or("oware"),
                BoardDesc { ranks: 2, houses: o.houses, seeds: Some(o.seeds), start: None, stores: false },
            );
            d.moves.must_feed = true;
            d.moves.singletons = match option(&spec, "singletons") {
                "restricted" => Singletons::Restricted,
                _ => Singletons::Free,
            };
            d.sowing.origin = Origin::Skip;
            d.capture.counts = vec![2, 3];
            d.capture.on = CaptureOn::Run;
            d.capture.grand_slam = match option(&spec, "grand_slam") {
                "forbidden" => GrandSlam::Forbidden,
                "capture-all" => GrandSlam::CaptureAll,
                "extra-turn" => GrandSlam::ExtraTurn,
                _ => GrandSlam::NoCapture,
            };
            d.end.majority = true;
            d.end.no_move = match option(&spec, "unfed_end") {
                "not-scored" => NoMove::NotScored,
                _ => NoMove::OwnersTake,
            };
            d.end.cycle = match option(&spec, "cycle").strip_prefix("plies:") {
                Some(n) => CycleDesc::Plies(n.parse().unwrap_or(1)),
                None => CycleDesc::Repetition,
            };
            d.end.max_plies = o.max_plies;
            d
        }
        AnyGame::Kalah(g) => {
            let o = g.options();
            let mut d = base(
                "kalah",
                BoardDesc { ranks: 2, houses: o.houses, seeds: Some(o.seeds), start: None, stores: true },
            );
            d.sowing.extra_turn = true;
            d.capture.cross = if o.empty_capture { Cross::Always } else { Cross::Occupied };
            d.end.empty_row = option(&spec, "end") != "mover-row-empty";
            d
        }
        AnyGame::BaAwa(_) => {
            let mut d = base("ba-awa", BoardDesc { ranks: 2, houses: 6, seeds: Some(4), start: None, stores: false });
            d.moves.from = SowFrom::Controlled;
            d.sowing.relay = true;
            d.sowing.relay_limit = number(&spec, "max_relay");
            d.capture.counts = vec![4];
            d.capture.on = CaptureOn::Sowing;
            d.capture.from = CaptureFrom::Any;
            d.capture.sowing_to =
                if option(&spec, "fours_to") == "mover" { SowingTo::Mover } else { SowingTo::Controller };
            d.end.no_move = NoMove::OpponentTakes;
            d.end.seeds_left = 8;
            d.end.max_plies = number(&spec, "max_plies");
            d
        }
        AnyGame::Owela(_) => {
            let columns: u8 = number(&spec, "columns");
            let c = usize::from(columns);
            let mut start = vec![2u8; 2 * c];
            start[c + 4..].fill(0);
            let mut d =
                base("owela", BoardDesc { ranks: 4, houses: columns, seeds: None, start: Some(start), stores: false });
            d.moves.min_seeds = number(&spec, "min_sow");
            d.sowing.relay = true;
            // Owela's max_relay counts lifts with the first one; a description counts relays.
            d.sowing.relay_limit = number::<u32>(&spec, "max_relay").saturating_sub(1);
            d.capture.four_rank = true;
            d.end.no_move = NoMove::MoverLoses;
            d.end.max_plies = number(&spec, "max_plies");
            d.end.score = Score::Board;
            d
        }
        AnyGame::Described(g) => g.description().clone(),
    }
}

/// The rules string of the preset whose hand-written engine plays exactly these rules, if
/// one does.
fn candidate(rules: &Rules) -> Option<String> {
    let uniform = rules.start.iter().all(|&s| s == rules.start[0]);
    if rules.ranks == 4 {
        return Some(format!(
            "owela columns={} min_sow={} max_relay={} max_plies={}",
            rules.territory / 2,
            rules.min_seeds,
            rules.relay_limit + 1,
            rules.max_plies
        ))
        .filter(|_| rules.four_rank && rules.max_plies > 0 && rules.cycle == CycleDesc::None);
    }
    if rules.stores {
        return uniform.then(|| {
            format!(
                "kalah houses={} seeds={} empty_capture={} end={}",
                rules.territory,
                rules.start[0],
                rules.cross == Cross::Always,
                if rules.empty_row { "either-row-empty" } else { "mover-row-empty" }
            )
        });
    }
    if rules.from == SowFrom::Controlled {
        let to = if rules.sowing_to == SowingTo::Mover { "mover" } else { "controller" };
        return Some(format!("ba-awa fours_to={to} max_relay={} max_plies={}", rules.relay_limit, rules.max_plies));
    }
    if !uniform || rules.max_plies == 0 || rules.direction != Direction::CounterClockwise {
        return None;
    }
    let cycle = match rules.cycle {
        CycleDesc::Repetition => "repetition".to_string(),
        CycleDesc::Plies(n) => format!("plies:{n}"),
        CycleDesc::None => return None,
    };
    let grand_slam = match rules.grand_slam {
        GrandSlam::NoCapture => "no-capture",
        GrandSlam::Forbidden => "forbidden",
        GrandSlam::CaptureAll => "capture-all",
        GrandSlam::ExtraTurn => "extra-turn",
    };
    let unfed = if rules.no_move == NoMove::NotScored { "not-scored" } else { "mover-takes" };
    let singletons = if rules.singletons == Singletons::Restricted { "restricted" } else { "free" };
    Some(format!(
        "oware houses={} seeds={} grand_slam={grand_slam} unfed_end={unfed} singletons={singletons} cycle={cycle} max_plies={}",
        rules.territory, rules.start[0], rules.max_plies
    ))
}

/// The preset game that plays exactly these rules with a hand-written engine, if any: a
/// description equal to a preset (with any of its options) is played by that engine.
pub fn fast_path(rules: &Rules) -> Option<AnyGame> {
    let text = candidate(rules)?;
    let game = parse_rules(&text).ok()?;
    let theirs = preset_description(&game).resolve().ok()?;
    (theirs == *rules).then_some(game)
}
