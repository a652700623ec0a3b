//! The translation request multiplexer (`XlateMux<3>`): three users offer
//! random requests under random stalls; a model of `MrXlate` takes them
//! under stalls and answers each, in request order, with 1 to 4 beats after
//! a random delay; every request reaches the unit with its fields, every
//! user gets exactly the beats of its own requests in order, nothing
//! offered is withdrawn; a request and an answer beat per cycle, and no
//! more requests outstanding than the answer FIFO routes.

use rnic_hw::mr::XlateMux;
use rnic_sim::axis::Rng;
use rnic_sim::models::xlate_mux;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

const USERS: usize = 3;
type Req = [u64; 6]; // key pd va len access id
type Ans = [u64; 5]; // id verdict iova len last

fn answers_of(r: &Req, user: usize) -> Vec<Ans> {
    let n = 1 + (r[0] ^ r[2]) % 4;
    (0..n)
        .map(|k| {
            let x = r[2].wrapping_mul(31).wrapping_add(k * 977 + user as u64);
            [r[5], x & 7, x, (x >> 7) & 0xffff_ffff, (k + 1 == n) as u64]
        })
        .collect()
}

struct Stats {
    req_taken: Vec<(usize, u64)>,
    at_unit: Vec<u64>,
    ans_out: Vec<u64>,
    ans_in: Vec<u64>,
}

fn run(seed: u64, n: usize, p_req: u64, p_unit: u64, p_ans: u64, p_take: u64, max_delay: u64) -> Stats {
    let mut rng = Rng(seed);
    let mut sim = Clocked::new(xlate_mux::Dut::new());
    let d = &sim.dut;
    let rf = ["key", "pd", "va", "len", "access", "id"];
    let af = ["id", "verdict", "iova", "len", "last"];
    let u_req: Vec<Vec<usize>> = (0..USERS)
        .map(|i| rf.iter().chain(&["valid", "ready"]).map(|f| d.port(&format!("s_req.{i}.{f}"))).collect())
        .collect();
    let u_ans: Vec<Vec<usize>> = (0..USERS)
        .map(|i| af.iter().chain(&["valid", "ready"]).map(|f| d.port(&format!("m_resp.{i}.{f}"))).collect())
        .collect();
    let m_req: Vec<usize> = rf.iter().chain(&["valid", "ready"]).map(|f| d.port(&format!("m_req.{f}"))).collect();
    let s_ans: Vec<usize> = af.iter().chain(&["valid", "ready"]).map(|f| d.port(&format!("s_resp.{f}"))).collect();
    sim.reset(3);
    let mut queued: Vec<VecDeque<Req>> = (0..USERS).map(|_| VecDeque::new()).collect();
    for k in 0..n {
        let u = (rng.next() % USERS as u64) as usize;
        let r = [
            rng.next() & 0xffff_ffff,
            rng.next() & 0xff_ffff,
            rng.next(),
            rng.next() & 0xffff_ffff,
            rng.next() & 7,
            k as u64 & 0xff,
        ];
        queued[u].push_back(r);
    }
    let mut sent: VecDeque<(Req, usize)> = VecDeque::new(); // taken by the mux, not yet at the unit
    let mut unit: VecDeque<(u64, Vec<Ans>)> = VecDeque::new(); // answers due, in order
    let mut want: Vec<VecDeque<Ans>> = (0..USERS).map(|_| VecDeque::new()).collect();
    let mut offered = [false; USERS];
    let mut held: Vec<Option<Ans>> = vec![None; USERS];
    let mut st = Stats { req_taken: vec![], at_unit: vec![], ans_out: vec![], ans_in: vec![] };
    let mut ans_valid = false;
    let limit = 40 * n as u64 + 200;
    while queued.iter().any(|q| !q.is_empty())
        || !sent.is_empty()
        || !unit.is_empty()
        || want.iter().any(|w| !w.is_empty())
    {
        assert!(sim.cycle() < limit, "seed {seed}: stuck");
        let now = sim.cycle();
        let d = &mut sim.dut;
        for u in 0..USERS {
            offered[u] = !queued[u].is_empty() && (offered[u] || rng.chance(p_req));
            if let Some(r) = queued[u].front() {
                for (f, v) in r.iter().enumerate() {
                    d.set_at(u_req[u][f], *v);
                }
            }
            d.set_at(u_req[u][6], offered[u] as u64);
        }
        let unit_ready = rng.chance(p_unit);
        d.set_at(m_req[7], unit_ready as u64);
        ans_valid = ans_valid || (unit.front().is_some_and(|a| a.0 <= now) && rng.chance(p_ans));
        if let Some((_, beats)) = unit.front() {
            for (f, v) in beats[0].iter().enumerate() {
                d.set_at(s_ans[f], *v);
            }
        }
        d.set_at(s_ans[5], ans_valid as u64);
        let take: Vec<bool> = (0..USERS).map(|_| rng.chance(p_take)).collect();
        for u in 0..USERS {
            d.set_at(u_ans[u][6], take[u] as u64);
        }
        d.eval();
        for u in 0..USERS {
            if offered[u] && d.bit_at(u_req[u][7]) {
                let r = queued[u].pop_front().unwrap();
                sent.push_back((r, u));
                offered[u] = false;
                st.req_taken.push((u, now));
            }
        }
        if d.bit_at(m_req[6]) && unit_ready {
            let got: Vec<u64> = (0..6).map(|f| d.get_at(m_req[f])).collect();
            let (r, u) = sent.pop_front().expect("a request nobody sent");
            assert_eq!(got, r.to_vec(), "seed {seed}: the request at the unit");
            let beats = answers_of(&r, u);
            want[u].extend(beats.iter().copied());
            unit.push_back((now + 1 + rng.next() % max_delay, beats));
            st.at_unit.push(now);
        }
        if ans_valid && d.bit_at(s_ans[6]) {
            let front = unit.front_mut().unwrap();
            front.1.remove(0);
            if front.1.is_empty() {
                unit.pop_front();
            }
            ans_valid = false;
            st.ans_out.push(now);
        }
        for u in 0..USERS {
            if d.bit_at(u_ans[u][5]) {
                let a: Ans = std::array::from_fn(|f| d.get_at(u_ans[u][f]));
                if let Some(h) = held[u] {
                    assert_eq!(h, a, "seed {seed}: user {u}: an offered beat changed");
                }
                held[u] = Some(a);
                if take[u] {
                    assert_eq!(Some(a), want[u].pop_front(), "seed {seed}: user {u}: its next beat");
                    held[u] = None;
                    st.ans_in.push(now);
                }
            } else {
                assert!(held[u].is_none(), "seed {seed}: user {u}: a beat withdrawn");
            }
        }
        sim.tick();
    }
    st
}

#[test]
fn random_requests_under_stalls() {
    for (seed, p) in [(1, 50), (2, 90), (3, 25)] {
        run(seed, 800, p, p, p, p, 30);
    }
}

#[test]
fn latency_and_rate() {
    let st = run(4, 300, 100, 100, 100, 100, 1);
    for (t, u) in st.req_taken.iter().zip(&st.at_unit) {
        assert_eq!(u - t.1, XlateMux::<3>::LATENCY, "request latency");
    }
    for (o, i) in st.ans_out.iter().zip(&st.ans_in) {
        assert_eq!(i - o, XlateMux::<3>::LATENCY, "answer latency");
    }
    // requests at one per cycle until the order FIFO holds what the unit
    // has not answered; then at the answers' rate, one beat per cycle
    let gaps: Vec<u64> = st.at_unit.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps[..28].iter().all(|&g| g == 1), "a request per cycle: {gaps:?}");
    let gaps: Vec<u64> = st.ans_out.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|&g| g == 1), "an answer beat per cycle: {gaps:?}");
}
