//! The generated model glue (`hdl_emit::shim`): values written to a port are
//! masked to its width, whatever the caller passes.

use rnic_sim::models::{sem_patterns, wide_patterns};
use rnic_sim::Model;

#[test]
fn setters_mask_values_to_the_port_width() {
    let mut dut = sem_patterns::Dut::new();
    dut.set_a(0x1ff);
    dut.set_psn_a(0xdead_beef);
    dut.set_reset(0xfffe);
    dut.eval();
    assert_eq!(dut.a(), 0xff, "an 8-bit port keeps 8 bits");
    assert_eq!(dut.psn_a(), 0xad_beef, "a 24-bit port keeps 24 bits");
    assert_eq!(dut.reset(), 0, "a 1-bit port keeps bit 0");
    // the generic path masks too
    let a = sem_patterns::PORTS.iter().position(|p| p.name == "a").unwrap();
    dut.set_words(a, &[0xffff_ff00]);
    let mut w = [0u32; 1];
    dut.get_words(a, &mut w);
    assert_eq!(w[0], 0);
}

#[test]
fn wide_setters_mask_the_last_word() {
    let mut dut = wide_patterns::Dut::new();
    // `offset` is 6 bits; `in_data` is 512 bits, exactly 16 words: nothing to mask
    dut.set_offset(0xffff_ffff_ffff_ffff);
    dut.eval();
    assert_eq!(dut.offset(), 0x3f);
    let all = [0xffff_ffffu32; 16];
    dut.set_in_data(&all);
    assert_eq!(dut.in_data(), all);
}

#[test]
#[should_panic(expected = "is not an input")]
fn writing_an_output_is_refused() {
    let mut dut = sem_patterns::Dut::new();
    let out = sem_patterns::PORTS.iter().position(|p| p.name == "count").unwrap();
    dut.set_words(out, &[1]);
}
