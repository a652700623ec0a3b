//! The completer's READ WQEs kept from their send (`ReadAhead`, catalog
//! `read_ahead`): random puts of {QPN, index, NUM_SGE, SGES} (many tags
//! put again with new words, as a ring's next lap), random looks (mostly
//! of tags put, some of tags never put or already found), invalidations,
//! in every spacing from back to back up. Each answer is checked against
//! the reference below, cycle for cycle: `found` exactly
//! [`READ_AHEAD_LATENCY`] cycles after its look, the hit and the word of
//! the last put of the tag that was not dropped; a put is dropped the cycle
//! after another put or with no slot free or holding its tag; a hit frees
//! every slot of its tag; `inval` frees every slot. The slots fill (more
//! tags than slots), so drops and frees are both exercised.

use rnic_hw::transport::{READ_AHEAD_LATENCY, READ_AHEAD_SLOTS};
use rnic_sim::axis::Rng;
use rnic_sim::models::read_ahead::Dut;
use rnic_sim::{Clocked, Model};

const N: usize = READ_AHEAD_SLOTS;

/// A WQE's words as put: NUM_SGE and the 16 words of SGES.
#[derive(Clone, Debug, PartialEq)]
struct Word {
    num: u8,
    sges: Vec<u32>,
}

/// The block as docs/transport_blocks.md ("`read_ahead`") states it,
/// stepped once per cycle with that cycle's inputs. Tags are full
/// {QPN, index}; a slot matches by the short tag (`short`).
#[derive(Default)]
struct Reference {
    tags: [u64; N],
    valid: [bool; N],
    words: Vec<Option<(u64, Word)>>,
    /// The put registered last cycle: tag, word, the slots it matched then.
    put: Option<(u64, Word, Vec<usize>)>,
    /// The put whose slot was chosen last cycle: slot, tag, word, the others it matched.
    write: Option<(usize, u64, Word, Vec<usize>)>,
    /// Slots a put dropped last cycle (busy) matched: freed now.
    kill: Vec<usize>,
    /// The look registered last cycle: its matches and tag; then its slot and tag; then the answer.
    look: Option<(Vec<usize>, u64)>,
    slot: Option<(Option<usize>, u64)>,
    answer: Option<Option<Word>>,
    drops: usize,
}

/// A tag's short form: QPN[7:0], index[7:0].
fn short(t: u64) -> u64 {
    (t & 0xff) | ((t >> 24) & 0xff) << 8
}

impl Reference {
    /// One cycle: `put`, `look` (tags) and `inval` are this cycle's inputs;
    /// returns `found` of this cycle (`Some(hit word)`).
    fn step(&mut self, put: Option<(u64, Word)>, look: Option<u64>, inval: bool) -> Option<Option<Word>> {
        if self.words.is_empty() {
            self.words = vec![None; N];
        }
        let out = self.answer.take();
        // a put being placed (chosen or written): no put is taken now
        let busy = self.put.is_some() || self.write.is_some();
        // the answer: the slot's word (read before this edge's write), a hit when its full tag is the look's
        let next_answer = self.slot.take().map(|(s, t)| {
            s.filter(|_| !inval).and_then(|k| self.words[k].clone()).filter(|(wt, _)| *wt == t).map(|(_, w)| w)
        });
        // the look's slot; its matches freed
        let mut next_slot = None;
        let mut clear = std::mem::take(&mut self.kill);
        if let Some((m, t)) = self.look.take() {
            next_slot = Some((if inval { None } else { m.first().copied() }, t));
            clear.extend(m);
        }
        // the write chosen last cycle
        let mut set = None;
        if let Some((k, tag, word, others)) = self.write.take() {
            clear.extend(others);
            if !inval {
                set = Some((k, tag, word));
            } else {
                self.drops += 1;
            }
        }
        // the put's slot: the lowest it matched, else the lowest free
        let mut next_write = None;
        if let Some((tag, word, m)) = self.put.take() {
            let target = if !m.is_empty() { m.first().copied() } else { (0..N).find(|&k| !self.valid[k]) };
            match target {
                Some(k) if !inval => {
                    let others = m.iter().copied().filter(|&x| x != k).collect();
                    next_write = Some((k, tag, word, others));
                }
                _ => self.drops += 1,
            }
        }
        // this cycle's inputs registered (against the state before this edge)
        let matches = |t: u64| (0..N).filter(|&k| self.valid[k] && short(self.tags[k]) == short(t)).collect::<Vec<_>>();
        let next_look = look.map(|t| (matches(t), t));
        let mut next_kill = vec![];
        let next_put = match put {
            Some((tag, word)) if !inval && !busy => Some((tag, word.clone(), matches(tag))),
            Some((tag, _)) => {
                if busy {
                    next_kill = matches(tag);
                }
                self.drops += 1;
                None
            }
            None => None,
        };
        // the edge
        for k in clear {
            self.valid[k] = false;
        }
        if let Some((k, tag, word)) = set {
            self.valid[k] = true;
            self.tags[k] = tag;
            self.words[k] = Some((tag, word));
        }
        if inval {
            // (a look under way still answers: a miss)
            self.valid = [false; N];
            self.look = next_look.map(|(_, t)| (vec![], t));
            self.write = None;
            self.kill = vec![];
        } else {
            self.look = next_look;
            self.write = next_write;
            self.kill = next_kill;
        }
        self.put = next_put;
        self.slot = next_slot;
        self.answer = next_answer;
        out
    }
}

fn tag(qpn: u64, index: u64) -> u64 {
    qpn | index << 24
}

#[test]
fn answers_match_the_reference() {
    for (seed, put_pct, look_pct, inval_ppm) in [(1u64, 30u64, 30u64, 2000u64), (2, 60, 20, 500), (3, 15, 60, 5000)] {
        let mut rng = Rng(seed * 0x9e37_79b9 + 7);
        let mut sim = Clocked::new(Dut::new());
        sim.reset(2);
        let mut r = Reference::default();
        // tags: 3 QPs x 24 indexes (72 > 32 slots); QPNs 0x100 and 0x300
        // share their short tags (so do indexes 5 and 261)
        let pick = |rng: &mut Rng| {
            let qpn = [0x100, 0x101, 0x300][(rng.next() % 3) as usize];
            let index = if rng.chance(5) { 261 } else { rng.next() % 24 };
            tag(qpn, index)
        };
        let mut put_tags: Vec<u64> = vec![];
        let (mut puts, mut looks, mut hits, mut invals) = (0, 0, 0, 0);
        let sges_port = sim.dut.port("s_put.sges");
        let f_sges_port = sim.dut.port("f_sges");
        let mut pending: std::collections::VecDeque<u64> = Default::default();
        for cycle in 0..6000u64 {
            let put = rng.chance(put_pct).then(|| {
                let t = pick(&mut rng);
                put_tags.push(t);
                (t, Word { num: rng.next() as u8, sges: (0..16).map(|_| rng.next() as u32).collect() })
            });
            let look = rng.chance(look_pct).then(|| {
                if !put_tags.is_empty() && rng.chance(80) {
                    put_tags[(rng.next() as usize) % put_tags.len()]
                } else {
                    pick(&mut rng)
                }
            });
            let inval = rng.next() % 1_000_000 < inval_ppm;
            if let Some((t, w)) = &put {
                sim.dut.set("s_put.qpn", t & 0xff_ffff);
                sim.dut.set("s_put.index", t >> 24);
                sim.dut.set("s_put.num", w.num as u64);
                sim.dut.set_words(sges_port, &w.sges);
                puts += 1;
            }
            sim.dut.set("s_put.valid", put.is_some() as u64);
            if let Some(t) = look {
                sim.dut.set("look_qpn", t & 0xff_ffff);
                sim.dut.set("look_index", t >> 24);
                looks += 1;
                pending.push_back(cycle);
            }
            sim.dut.set("look", look.is_some() as u64);
            sim.dut.set("inval", inval as u64);
            invals += inval as usize;
            sim.settle();
            let want = r.step(put, look, inval);
            let found = sim.dut.get("found") == 1;
            assert_eq!(found, want.is_some(), "seed {seed} cycle {cycle}: found");
            if let Some(w) = want {
                let at = pending.pop_front().unwrap();
                assert_eq!(cycle - at, READ_AHEAD_LATENCY, "seed {seed} cycle {cycle}: the latency");
                assert_eq!(sim.dut.get("f_hit") == 1, w.is_some(), "seed {seed} cycle {cycle}: hit");
                if let Some(w) = w {
                    hits += 1;
                    assert_eq!(sim.dut.get("f_num"), w.num as u64, "seed {seed} cycle {cycle}: NUM_SGE");
                    let mut got = vec![0u32; 16];
                    sim.dut.get_words(f_sges_port, &mut got);
                    assert_eq!(got, w.sges, "seed {seed} cycle {cycle}: SGES");
                }
            }
            sim.tick();
        }
        eprintln!("seed {seed}: {puts} puts ({} dropped), {looks} looks, {hits} hits, {invals} invalidations", r.drops);
        assert!(hits > 200 && looks - hits > 200 && r.drops > 20 && puts - r.drops > 500, "seed {seed}: exercised");
    }
}
