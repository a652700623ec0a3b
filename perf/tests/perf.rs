//! rnic-perf and rnic-devinfo: the options, perftest's output built by hand
//! from its format strings (linux-rdma/perftest commit
//! 00b55b6660d0170dabe2c1b49193e8fbe265086e), and the tools run on the
//! simulator.

use rnic_contract::codes::Mtu;
use rnic_driver::connect::QpEndpoint;
use rnic_perf::options::*;
use rnic_perf::report::*;
#[cfg(feature = "sim")]
use std::process::Command;

fn argv(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

#[test]
fn defaults_are_perftests() {
    // 64 KiB messages: perftest turns CQ moderation off above 8 KiB unless -Q is given.
    let o = parse(&argv("rnic-perf write_bw")).unwrap();
    assert_eq!((o.size, o.iters, o.tx_depth, o.cq_mod, o.port, o.qps), (65536, 5000, 128, 1, 18515, 1));
    assert_eq!(parse(&argv("rnic-perf write_bw -s 8192")).unwrap().cq_mod, 100);
    assert_eq!(parse(&argv("rnic-perf write_bw -Q 50")).unwrap().cq_mod, 50);
    // force_dependecies: the depth at most the iterations, moderation at most the depth.
    let o = parse(&argv("rnic-perf send_bw -n 20 -s 64")).unwrap();
    assert_eq!((o.tx_depth, o.rx_depth, o.cq_mod), (20, 20, 20));
    assert_eq!(parse(&argv("rnic-perf write_bw -s 64 -l 4")).unwrap().cq_mod, 4);
    assert_eq!((o.device.clone(), o.server.clone(), o.gid_index), (DeviceSel::Sim, None, None));
    let o = parse(&argv("rnic-perf read_bw")).unwrap();
    assert_eq!((o.iters, o.rx_depth), (1000, 1));
    let o = parse(&argv("rnic-perf send_bw")).unwrap();
    assert_eq!(o.rx_depth, 512);
    let o = parse(&argv("rnic-perf send_lat")).unwrap();
    assert_eq!((o.size, o.tx_depth), (2, 1));
    assert_eq!(parse(&argv("rnic-perf atomic_bw")).unwrap().size, 8);
    // argv[0] names the test, as perftest's binaries do.
    assert_eq!(parse(&argv("/usr/bin/ib_read_lat")).unwrap().test, Test::ReadLat);
    assert_eq!(parse(&argv("rnic_write_lat -s 64")).unwrap().size, 64);
    for t in Test::ALL {
        assert_eq!(parse(&[String::from("rnic-perf"), t.name().into()]).unwrap().test, t);
    }
}

#[test]
fn every_option_parses() {
    // -e and --run_infinitely do not go together (perftest refuses it):
    // every option but --run_infinitely on one line, then it on another.
    let o = parse(&argv(
        "rnic-perf write_bw -d 0000:3b:00.1 -i 1 -x 3 -s4096 -n 100 -q 4 -c UC -m 2048 -t 64 -r 32 -u 18 \
         -b -N -Q 2 -l 4 -I 64 -p 20000 -e --report_gbits --write_with_imm --progress 10.0.0.2",
    ))
    .unwrap();
    assert_eq!(o.device, DeviceSel::Pci("0000:3b:00.1".into()));
    assert_eq!((o.gid_index, o.size, o.iters, o.qps, o.connection), (Some(3), 4096, 100, 4, Connection::Uc));
    // force_dependecies: a WRITE test's receive depth is DEF_RX_RDMA whatever -r says.
    assert_eq!((o.mtu, o.tx_depth, o.rx_depth, o.qp_timeout), (Some(Mtu::Mtu2048), 64, 1, 18));
    assert!(o.bidirectional && o.no_peak && o.use_event && o.report_gbits && o.write_with_imm && o.progress);
    assert_eq!((o.cq_mod, o.post_list, o.inline_size, o.port), (2, 4, 64, 20000));
    assert_eq!(o.server.as_deref(), Some("10.0.0.2"));
    let o = parse(&argv("rnic-perf write_bw -b --run_infinitely -D 10 -f 2 10.0.0.2")).unwrap();
    assert!(o.run_infinitely && o.bidirectional && o.duration_mode() && o.no_peak, "{o:?}");
    assert_eq!((o.duration_secs(), o.margin()), (10, 2));
    let o = parse(&argv("rnic-perf read_lat --size=256 --iters 50 -o 4 -D 3")).err();
    assert_eq!(o, Some(OptError::Conflict("-D runs for a time; -n counts iterations")));
    // perftest: "Duration mode currently doesn't support running on all sizes."
    let o = parse(&argv("rnic-perf read_bw -D 3 -a -o 4 -A CMP_AND_SWAP")).err();
    assert_eq!(o, Some(OptError::Conflict("Duration mode currently doesn't support running on all sizes.")));
    let o = parse(&argv("rnic-perf read_bw -D 3 -o 4 -A CMP_AND_SWAP")).unwrap();
    assert_eq!((o.duration, o.all, o.outs, o.atomic_type), (Some(3), false, Some(4), AtomicType::CmpAndSwap));
    let o = parse(&argv("rnic-perf read_bw -a -o 4")).unwrap();
    assert_eq!(o.sizes().len(), 23);
    assert_eq!((o.sizes()[0], *o.sizes().last().unwrap()), (2, MAX_SIZE));
}

#[test]
fn bad_command_lines_are_typed() {
    let bad = |s: &str| parse(&argv(s)).unwrap_err();
    assert_eq!(bad("rnic-perf"), OptError::UnknownTest(String::new()));
    assert_eq!(bad("rnic-perf write_bandwidth"), OptError::UnknownTest("write_bandwidth".into()));
    assert_eq!(bad("rnic-perf write_bw --frobnicate"), OptError::UnknownOption("--frobnicate".into()));
    assert_eq!(bad("rnic-perf write_bw -s"), OptError::MissingValue("-s".into()));
    assert!(matches!(bad("rnic-perf write_bw -s 0"), OptError::BadValue { option, .. } if option == "-s"));
    assert!(
        matches!(bad("rnic-perf write_bw -s 8388609"), OptError::BadValue { reason, .. } if reason.contains("8388608"))
    );
    assert!(matches!(bad("rnic-perf write_bw -n 4"), OptError::BadValue { option, .. } if option == "-n"));
    assert!(matches!(bad("rnic-perf write_bw -n lots"), OptError::BadValue { reason, .. } if reason == "not a number"));
    assert!(matches!(bad("rnic-perf write_bw -m 1500"), OptError::BadValue { option, .. } if option == "-m"));
    assert!(matches!(bad("rnic-perf write_bw -d mlx5_0"), OptError::BadValue { option, .. } if option == "-d"));
    assert!(matches!(bad("rnic-perf write_bw -c XRC"), OptError::BadValue { option, .. } if option == "-c"));
    assert!(matches!(bad("rnic-perf write_bw -x 16"), OptError::BadValue { option, .. } if option == "-x"));
    assert!(matches!(bad("rnic-perf write_bw -i 2"), OptError::BadValue { option, .. } if option == "-i"));
    assert_eq!(bad("rnic-perf write_bw -a -s 64"), OptError::Conflict("-a runs every size; -s names one"));
    assert_eq!(bad("rnic-perf write_bw -c UD"), OptError::Conflict("UD carries SEND only"));
    assert_eq!(bad("rnic-perf read_bw -c UC"), OptError::Conflict("UC has no READ or atomics"));
    assert_eq!(bad("rnic-perf atomic_bw -s 16"), OptError::Conflict("an atomic moves 8 bytes: -s must be 8"));
    assert_eq!(bad("rnic-perf write_lat -b"), OptError::Conflict("-b is for BW tests"));
    assert_eq!(bad("rnic-perf write_bw a b"), OptError::ExtraArgument("b".into()));
    assert_eq!(
        bad("rnic-perf write_bw -n 10 -l 4"),
        OptError::Conflict("Number of iterations must be a multiple of post list size")
    );
    assert_eq!(
        bad("rnic-perf write_bw -l 4 -Q 3"),
        OptError::Conflict("Post list size must be a multiple of CQ moderation")
    );
    assert_eq!(
        bad("rnic-perf write_bw -l 4 -t 2"),
        OptError::Conflict("the post list is longer than the send queue (-t)")
    );
    assert_eq!(bad("rnic-perf write_bw -h"), OptError::Help);
    assert!(is_pci_address("0000:01:00.0") && !is_pci_address("0000:01:00") && !is_pci_address("000g:01:00.0"));
}

#[test]
fn c_alternate_hex_is_printfs() {
    // printf("%#04x", 0) is "0000": C drops the 0x for zero; the width counts the 0x.
    assert_eq!(c_alt_hex(0, 4), "0000");
    assert_eq!(c_alt_hex(0x12, 6), "0x0012");
    assert_eq!(c_alt_hex(0x123456, 6), "0x123456");
    assert_eq!(c_alt_hex(0x7f12_3456_7000, 16), "0x007f1234567000");
}

const DASHES: &str = "---------------------------------------------------------------------------------------\n";

fn write_bw_info(client: bool) -> HeaderInfo<'static> {
    HeaderInfo {
        verb: Verb::Write,
        kind: Kind::Bw,
        write_with_imm: false,
        atomic_type: "FETCH_AND_ADD",
        duplex: false,
        post_list: 1,
        device: "rnic_sim",
        qps: 1,
        connection: "RC",
        client,
        tx_depth: 128,
        rx_depth: 1,
        cq_mod: 100,
        mtu_bytes: 1024,
        gid_index: Some(1),
        inline_size: 0,
        out_reads: 1,
        events: false,
    }
}

#[test]
fn header_block_is_perftests() {
    assert_eq!(DASHES.len(), 88);
    let expected = [
        DASHES,
        "                    RDMA_Write BW Test\n",
        " Dual-port       : OFF\t\tDevice         : rnic_sim\n",
        " Number of qps   : 1\t\tTransport type : IB\n",
        " Connection type : RC\t\tUsing SRQ      : OFF\n",
        " PCIe relax order: Unsupported\t\tLock-free      : OFF\n",
        " ibv_wr* API     : OFF\t\tUsing Enhanced Reorder      : OFF\n",
        " TX depth        : 128\n",
        " CQ Moderation   : 100\n",
        " CQE Poll Batch  : Dynamic\n",
        " Mtu             : 1024[B]\n",
        " Link type       : Ethernet\n",
        " GID index       : 1\n",
        " Max inline data : 0[B]\n",
        " rdma_cm QPs\t : OFF\n",
        " Data ex. method : Ethernet\n",
        DASHES,
    ]
    .concat();
    assert_eq!(header(&write_bw_info(true)), expected);

    // The server of send_lat: no TX depth, an RX depth, no CQ moderation.
    let info = HeaderInfo { verb: Verb::Send, kind: Kind::Lat, rx_depth: 512, gid_index: None, ..write_bw_info(false) };
    let h = header(&info);
    assert!(h.contains("                    Send Latency Test\n"), "{h}");
    assert!(h.contains(" RX depth        : 512\n") && !h.contains("TX depth") && !h.contains("CQ Moderation"));
    assert!(!h.contains("GID index"));
    // READ and atomics show outstanding reads instead of inline data.
    let info = HeaderInfo { verb: Verb::Atomic, out_reads: 16, ..write_bw_info(true) };
    let h = header(&info);
    assert!(h.contains("                    Atomic FETCH_AND_ADD BW Test\n"), "{h}");
    assert!(h.contains(" Outstand reads  : 16\n") && !h.contains("Max inline"));
    let info = HeaderInfo { duplex: true, post_list: 4, ..write_bw_info(true) };
    assert!(header(&info).contains("RDMA_Write Bidirectional Post List BW Test\n Dual-port"));
}

fn endpoint() -> QpEndpoint {
    QpEndpoint {
        lid: 0,
        out_reads: 16,
        qpn: 0x123,
        psn: 0xabcdef,
        rkey: 0x1234,
        vaddr: 0x7f12_3456_7000,
        srqn: 0,
        gid: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 1],
    }
}

#[test]
fn address_lines_are_perftests() {
    // BASIC_ADDR_FMT " %s address: LID %#04x QPN %#06x PSN %#06x", then
    // READ_FMT " OUT %#04x" falling through to RDMA_FMT " RKey %#08x VAddr %#016llx".
    let gid = " GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:01:01\n";
    assert_eq!(
        address_lines(false, Verb::Write, &endpoint(), true),
        format!(" local address: LID 0000 QPN 0x0123 PSN 0xabcdef RKey 0x001234 VAddr 0x007f1234567000\n{gid}")
    );
    assert_eq!(
        address_lines(true, Verb::Read, &endpoint(), false),
        " remote address: LID 0000 QPN 0x0123 PSN 0xabcdef OUT 0x10 RKey 0x001234 VAddr 0x007f1234567000\n"
    );
    assert_eq!(
        address_lines(false, Verb::Send, &endpoint(), false),
        " local address: LID 0000 QPN 0x0123 PSN 0xabcdef\n"
    );
}

#[test]
fn bw_table_is_perftests() {
    assert_eq!(
        bw_table_header(false),
        format!("{DASHES} #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]\n")
    );
    assert_eq!(
        bw_table_header(true),
        format!("{DASHES} #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n")
    );
    // REPORT_FMT " %-7lu    %-10lu       %-7.2lf            %-7.2lf\t\t     %-7.6lf" + REPORT_EXT
    let f = BwFigures { size: 65536, iters: 5000, bw_peak: 11000.5, bw_avg: 10999.25, msg_rate: 0.175988 };
    let expected = [
        " ",
        "65536  ",
        "    ",
        "5000      ",
        "       ",
        "11000.50",
        "            ",
        "10999.25",
        "\t\t     ",
        "0.175988",
        "\n",
    ];
    assert_eq!(bw_row(&f, false), expected.concat());
    let f = BwFigures { size: 2, iters: 5000, bw_peak: 1.5, bw_avg: 0.25, msg_rate: 11.0 };
    let expected = [
        " ",
        "2      ",
        "    ",
        "5000      ",
        "       ",
        "1.50   ",
        "            ",
        "0.25   ",
        "\t\t     ",
        "11.000000",
        "\n",
    ];
    assert_eq!(bw_row(&f, true), expected.concat());
    // Below 0.1 Gb/s: REPORT_FMT_EXT " %-7lu    %lu           %-7.6lf            %-7.6lf            %-7.6lf"
    let f = BwFigures { size: 2, iters: 5, bw_peak: 0.05, bw_avg: 0.04, msg_rate: 2.5 };
    let expected = [
        " ",
        "2      ",
        "    ",
        "5",
        "           ",
        "0.050000",
        "            ",
        "0.040000",
        "            ",
        "2.500000",
        "\n",
    ];
    assert_eq!(bw_row(&f, true), expected.concat());
}

#[test]
fn bw_figures_as_perftest_computes_them() {
    // Four messages of 1000 bytes, a completion every second one.
    let posted = [0, 10, 20, 30];
    let completed = [100, 100, 200, 200];
    let f = bw_figures(1000, &posted, &completed, 2, 1, false, false);
    // 4000 bytes in 200 ns; the peak is the best window: 50 ns a message.
    assert_eq!(f.iters, 4);
    assert!((f.bw_avg - 4000.0 * 1e9 / 200.0 / 1_048_576.0).abs() < 1e-9, "{f:?}");
    assert!((f.bw_peak - 1000.0 * 1e9 / 50.0 / 1_048_576.0).abs() < 1e-9, "{f:?}");
    assert!((f.msg_rate - 20.0).abs() < 1e-12);
    let g = bw_figures(1000, &posted, &completed, 2, 1, false, true);
    assert!((g.bw_avg - 160.0).abs() < 1e-9 && (g.bw_peak - 160.0).abs() < 1e-9, "{g:?}");
    // -N: no peak (0), the average over the first completion only, as perftest.
    let n = bw_figures(1000, &posted, &completed, 2, 1, true, false);
    assert_eq!(n.bw_peak, 0.0);
    assert!((n.bw_avg - 4000.0 * 1e9 / 100.0 / 1_048_576.0).abs() < 1e-9);
}

#[test]
fn lat_table_is_perftests() {
    assert_eq!(
        lat_table_header(),
        format!(
            "{DASHES} #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
        )
    );
    // Deltas 1..5 us of round trip plus two outliers; WRITE halves them.
    let deltas = [3000u64, 1000, 200_000, 5000, 2000, 100_000, 4000];
    let mut stamps = vec![0u64];
    for d in deltas {
        stamps.push(stamps.last().unwrap() + d);
    }
    let f = lat_figures(2, Verb::Write, &stamps).unwrap();
    assert_eq!(f.iters, 8);
    assert_eq!((f.t_min, f.t_typical, f.t_avg), (0.5, 1.5, 1.5));
    // perftest's t_max and percentiles index delta[measure_cnt] and
    // delta[ceil(n * 0.99)]: past the kept samples, into the tail.
    assert_eq!((f.t_max, f.p99, f.p99_9), (50.0, 50.0, 50.0));
    // stdev with perftest's int truncations: (1, 0, 0, 0, -1) squared.
    assert!((f.t_stdev - (2.0f64 / 5.0).sqrt()).abs() < 1e-12);
    let r = lat_figures(2, Verb::Read, &stamps).unwrap();
    assert_eq!((r.t_min, r.t_typical), (1.0, 3.0));
    assert_eq!(lat_figures(2, Verb::Read, &stamps[..4]).map(|f| f.iters), Some(4));
    assert!(lat_figures(2, Verb::Read, &stamps[..3]).is_none());
    // REPORT_FMT_LAT
    let expected = [
        " ",
        "2      ",
        " ",
        "8",
        "          ",
        "0.50   ",
        "        ",
        "50.00  ",
        "      ",
        "1.50   ",
        "  \t       ",
        "1.50   ",
        "     \t",
        "0.63   ",
        "\t\t",
        "50.00  ",
        " \t\t",
        "50.00  ",
        "\n",
    ];
    assert_eq!(lat_row(&f), expected.concat());
}

#[cfg(feature = "sim")]
#[test]
fn devinfo_on_the_simulator() {
    let out = Command::new(env!("CARGO_BIN_EXE_rnic-devinfo")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let (major, minor) = (rnic_contract::ABI_MAJOR, rnic_contract::ABI_MINOR);
    // Today's RTL: id_mac_* read 0 (the GUID of a zero MAC), status 0 (the port down).
    let expected = [
        "hca_id:\trnic_sim\n".to_string(),
        "\ttransport:\t\t\tInfiniBand (0)\n".into(),
        format!("\tfw_ver:\t\t\t\t{major}.{minor}\n"),
        "\tnode_guid:\t\t\t0200:00ff:fe00:0000\n".into(),
        "\tsys_image_guid:\t\t\t0200:00ff:fe00:0000\n".into(),
        "\tvendor_id:\t\t\t0x0000\n".into(),
        "\tvendor_part_id:\t\t\t0\n".into(),
        format!("\thw_ver:\t\t\t\t0x{major:X}\n"),
        "\tphys_port_cnt:\t\t\t1\n".into(),
        "\t\tport:\t1\n".into(),
        "\t\t\tstate:\t\t\tPORT_DOWN (1)\n".into(),
        "\t\t\tmax_mtu:\t\t4096 (5)\n".into(),
        "\t\t\tactive_mtu:\t\t4096 (5)\n".into(),
        "\t\t\tsm_lid:\t\t\t0\n".into(),
        "\t\t\tport_lid:\t\t0\n".into(),
        "\t\t\tport_lmc:\t\t0x00\n".into(),
        "\t\t\tlink_layer:\t\tEthernet\n\n".into(),
    ]
    .concat();
    assert_eq!(text, expected);
    let bad = Command::new(env!("CARGO_BIN_EXE_rnic-devinfo")).args(["-d", "mlx5_0"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[cfg(feature = "sim")]
#[test]
fn perf_on_the_host_side_alone_stops_with_no_wire_and_prints_no_figure() {
    for test in ["write_bw", "read_lat"] {
        let out = Command::new(env!("CARGO_BIN_EXE_rnic-perf")).args([test, "-n", "10"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
        assert!(err.contains(&format!("rnic-perf {test}: -d sim alone is the host side with no wire")), "{err}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_rnic-perf"))
        .args(["write_bw", "-d", "0000:01:00.0", "--sim_wire", "a,b,10.0.0.1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only with -d sim"));
    let out = Command::new(env!("CARGO_BIN_EXE_rnic-perf")).args(["write_bw", "-s", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("option -s: \"0\": must be in 1..=8388608"));
}

#[test]
fn feature_check_names_what_is_missing() {
    use rnic_perf::run::{check_features, PerfError};
    let o = parse(&argv("rnic-perf atomic_bw")).unwrap();
    assert!(matches!(check_features(0, &o), Err(PerfError::NoTransport { features: 0 })));
    assert!(matches!(check_features(1, &o), Err(PerfError::MissingFeature { feature: "ATOMICS", features: 1 })));
    assert!(check_features(1 | 1 << 5, &o).is_ok());
    let o = parse(&argv("rnic-perf send_bw -c UD -I 64")).unwrap();
    assert!(matches!(check_features(1, &o), Err(PerfError::MissingFeature { feature: "UD", .. })));
    assert!(matches!(check_features(1 | 1 << 2, &o), Err(PerfError::MissingFeature { feature: "INLINE", .. })));
    let gid = rnic_driver::link_local_gid([0x02, 0x11, 0x22, 0x33, 0x44, 0x55]);
    assert_eq!(rnic_perf::run::mac_from_gid(&gid), Some([0x02, 0x11, 0x22, 0x33, 0x44, 0x55]));
    assert_eq!(rnic_perf::run::mac_from_gid(&rnic_driver::ipv4_gid([10, 0, 0, 1])), None);
    // An IPv4 GID: -E, else the neighbour table; one nobody knows is a typed error.
    let o = parse(&argv("rnic-perf write_bw -E 02:aa:bb:cc:dd:ee")).unwrap();
    assert_eq!(o.dest_mac, Some([2, 0xaa, 0xbb, 0xcc, 0xdd, 0xee]));
    let peer = rnic_driver::ipv4_gid([198, 51, 100, 77]);
    assert_eq!(rnic_perf::run::peer_mac(&o, &peer).unwrap(), [2, 0xaa, 0xbb, 0xcc, 0xdd, 0xee]);
    let o = parse(&argv("rnic-perf write_bw")).unwrap();
    assert_eq!(rnic_perf::run::peer_mac(&o, &gid).unwrap(), [0x02, 0x11, 0x22, 0x33, 0x44, 0x55]);
    match rnic_perf::run::peer_mac(&o, &peer) {
        Err(e @ PerfError::NoMac { .. }) => assert!(e.to_string().contains("198.51.100.77"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        parse(&argv("rnic-perf write_bw -E 02:aa:bb")).unwrap_err(),
        OptError::BadValue { option, .. } if option == "-E"
    ));
}

#[test]
fn duration_events_and_bidirectional_options_are_perftests() {
    let bad = |s: &str| parse(&argv(s)).unwrap_err();
    // -D: perftest's defaults and checks (force_dependecies).
    let o = parse(&argv("rnic-perf write_bw -D 10")).unwrap();
    assert_eq!((o.duration, o.duration_secs(), o.margin(), o.no_peak), (Some(10), 10, 2, true));
    assert_eq!(o.tx_depth, DEF_TX_BW, "a duration run keeps its depth whatever -n would be");
    let o = parse(&argv("rnic-perf write_bw -D 1")).unwrap();
    assert_eq!(o.margin(), 0, "a quarter of 1 s rounds down to 0");
    assert_eq!(parse(&argv("rnic-perf write_bw --duration=7 --margin 3")).unwrap().margin(), 3);
    assert_eq!(bad("rnic-perf write_bw -D 4 -f 2"), OptError::Conflict("please check that DURATION > 2*MARGIN"));
    assert!(matches!(bad("rnic-perf write_bw -D 0"), OptError::BadValue { option, .. } if option == "-D"));
    assert!(matches!(bad("rnic-perf write_bw -D x"), OptError::BadValue { reason, .. } if reason == "not a number"));
    assert!(matches!(bad("rnic-perf write_bw -D 5 -f -1"), OptError::BadValue { option, .. } if option == "-f"));
    assert_eq!(bad("rnic-perf send_bw -D 5 -e"), OptError::Conflict("Duration mode doesn't work with events."));
    assert_eq!(
        bad("rnic-perf write_bw -f 1"),
        OptError::Conflict("-f (margin) is for duration runs (-D, --run_infinitely)")
    );
    assert_eq!(bad("rnic-perf write_bw -D"), OptError::MissingValue("-D".into()));
    // --run_infinitely: a duration run reporting every DEF_DURATION seconds.
    let o = parse(&argv("rnic-perf write_bw --run_infinitely")).unwrap();
    assert_eq!((o.duration_mode(), o.duration_secs(), o.margin(), o.no_peak), (true, DEF_DURATION, 1, true));
    assert_eq!(
        bad("rnic-perf write_lat --run_infinitely"),
        OptError::Conflict("run_infinitely exists only in BW tests for now.")
    );
    assert_eq!(
        bad("rnic-perf send_bw --run_infinitely -e"),
        OptError::Conflict("run_infinitely does not support events feature yet.")
    );
    assert_eq!(
        bad("rnic-perf send_bw --run_infinitely -b"),
        OptError::Conflict("run_infinitely mode is not supported in SEND, SEND_IMM or WRITE_IMM Bidirectional BW test")
    );
    assert_eq!(
        bad("rnic-perf write_bw --run_infinitely -a"),
        OptError::Conflict("-a and --run_infinitely do not go together")
    );
    // -e: not on a plain WRITE (no completion on the passive side to wait for).
    assert_eq!(bad("rnic-perf write_bw -e"), OptError::Conflict("Events feature not available on WRITE verb"));
    assert_eq!(bad("rnic-perf write_lat --events"), OptError::Conflict("Events feature not available on WRITE verb"));
    for ok in ["rnic-perf write_bw -e --write_with_imm", "rnic-perf read_lat -e", "rnic-perf send_bw --events"] {
        assert!(parse(&argv(ok)).unwrap().use_event, "{ok}");
    }
    // -e keeps CQ moderation above 8 KiB (perftest: events do not turn it off).
    assert_eq!(parse(&argv("rnic-perf send_bw -e")).unwrap().cq_mod, DEF_CQ_MOD);
    assert_eq!(
        bad("rnic-perf send_bw --write_with_imm"),
        OptError::Conflict("Write_with_imm can only be used with write_lat and write_bw tests")
    );
    // -b: BW tests only, and the header says so.
    assert!(parse(&argv("rnic-perf read_bw --bidirectional")).unwrap().bidirectional);
    assert_eq!(bad("rnic-perf send_lat -b"), OptError::Conflict("-b is for BW tests"));
    assert!(usage().contains("--progress") && usage().contains("-f <margin>"));
}

#[test]
fn events_header_and_duration_tables_are_perftests() {
    // " Test with events. Using %s_comp%d\n" right after the title.
    let info = HeaderInfo { verb: Verb::Send, events: true, ..write_bw_info(true) };
    let h = header(&info);
    assert!(h.contains("                    Send BW Test\n Test with events. Using rnic_sim_comp0\n Dual-port"), "{h}");
    assert!(!header(&write_bw_info(true)).contains("events"));
    // A duration latency run: RESULT_FMT_LAT_DUR, REPORT_FMT_LAT_DUR.
    assert_eq!(
        lat_dur_table_header(),
        format!("{DASHES} #bytes        #iterations       t_avg[usec]    tps average\n")
    );
    // 1000 SEND ping-pongs in 4 ms: 2 us of one way each, 250000 a second.
    let (t_avg, tps) = lat_dur_figures(Verb::Send, 1000, 4_000_000);
    assert_eq!((t_avg, tps), (2.0, 250_000.0));
    assert_eq!(lat_dur_figures(Verb::Read, 1000, 4_000_000).0, 4.0, "READ reports the round trip");
    // " %-7lu       %lu            %-7.2f        %-7.2f"
    let expected = [" ", "2      ", "       ", "1000", "            ", "2.00   ", "        ", "250000.00", "\n"];
    assert_eq!(lat_dur_row(2, 1000, t_avg, tps), expected.concat());
    // A duration BW run: no peak; 1000 messages of 1 MiB in 1 s.
    let f = bw_figures_duration(1 << 20, 1000, 1_000_000_000, false);
    assert_eq!((f.bw_peak, f.bw_avg, f.msg_rate), (0.0, 1000.0, 0.001));
    let g = bw_figures_duration(1 << 20, 1000, 1_000_000_000, true);
    assert!((g.bw_avg - 1000.0 * 1_048_576.0 * 8.0 / 1e9).abs() < 1e-9, "{g:?}");
    assert_eq!(bw_row(&f, false), " 1048576    1000             0.00               1000.00\t\t     0.001000\n");
    // --report_gbits rows for a duration run: REPORT_FMT, or REPORT_FMT_EXT below 0.1 Gb/s.
    assert_eq!(bw_row(&g, true), " 1048576    1000             0.00               8.39   \t\t     0.001000\n");
    let slow = bw_figures_duration(64, 10, 1_000_000_000, true);
    assert_eq!(bw_row(&slow, true), " 64         10           0.000000            0.000005            0.000010\n");
}

#[test]
fn bidirectional_rows_add_the_peers_figures() {
    let mine = BwFigures { size: 4096, iters: 1000, bw_peak: 100.0, bw_avg: 90.0, msg_rate: 0.25 };
    let peer = BwFigures { size: 4096, iters: 999, bw_peak: 50.0, bw_avg: 45.5, msg_rate: 0.125 };
    let sum = bw_sum(&mine, &peer);
    assert_eq!(sum, BwFigures { size: 4096, iters: 1000, bw_peak: 150.0, bw_avg: 135.5, msg_rate: 0.375 });
    let info = HeaderInfo { duplex: true, ..write_bw_info(false) };
    let h = header(&info);
    assert!(h.contains("RDMA_Write Bidirectional BW Test\n") && h.contains(" TX depth        : 128\n"), "{h}");
}

#[test]
fn progress_lines_go_out_once_per_interval() {
    use std::time::Duration;
    let s = Duration::from_secs;
    let mut p = Progress::new(s(1));
    assert!(!p.due(Duration::from_millis(999)), "a run under the interval prints nothing");
    assert!(p.due(s(1)));
    assert!(!p.due(Duration::from_millis(1500)));
    assert!(p.due(s(5)), "late: one line, the missed ones are not caught up");
    assert!(!p.due(Duration::from_millis(5999)));
    assert!(p.due(s(6)));
    assert_eq!(progress_line(65536, 1250, 5000, 0, 0), "rnic-perf: 65536 B: 1250/5000 messages (25%)\n");
    assert_eq!(progress_line(64, 777, 0, 3, 10), "rnic-perf: 64 B: 777 messages, 3/10 s\n");
    assert_eq!(PROGRESS_INTERVAL_S, 1);
}

#[test]
fn device_selection_picks_the_backend() {
    use rnic_perf::run::PerfError;
    assert_eq!(parse(&argv("rnic-perf write_bw")).unwrap().device, DeviceSel::Sim);
    assert_eq!(parse(&argv("rnic-perf write_bw -d sim")).unwrap().device, DeviceSel::Sim);
    assert_eq!(
        parse(&argv("rnic-perf write_bw --ib-dev=0000:af:00.7")).unwrap().device,
        DeviceSel::Pci("0000:af:00.7".into())
    );
    // A PCI address goes to VFIO: no such device here, so the open fails with
    // the system call that failed, before anything else.
    match rnic_perf::device::open(&DeviceSel::Pci("0000:ff:1f.7".into())) {
        Err(PerfError::Driver(rnic_driver::Error::Hw(rnic_driver::hw::HwError::Os { op, .. }))) => {
            assert!(op.contains("iommu_group"), "{op}")
        }
        Err(e) => panic!("not the VFIO open's error: {e}"),
        Ok(_) => panic!("a device at 0000:ff:1f.7?"),
    }
    #[cfg(not(feature = "sim"))]
    assert!(matches!(rnic_perf::device::open(&DeviceSel::Sim), Err(PerfError::NoSimulator)));
}

#[test]
fn devinfo_prints_the_pci_identity_as_ibv_devinfo() {
    use rnic_driver::{DeviceAttr, PortAttr, PortState};
    let attr = DeviceAttr {
        abi_version: rnic_contract::ABI_VERSION,
        features: 0,
        datapath_bytes: 64,
        clock_mhz: 250,
        mac: [0x02, 0x11, 0x22, 0x33, 0x44, 0x55],
        max_qp: 14,
        max_cq: 16,
        max_mr: 16,
        max_mtt: 1024,
        max_ah: 16,
        max_qp_wr: 4096,
        max_send_sge: 4,
        max_recv_sge: 4,
        max_inline_data: 0,
        irq_vectors: 4,
        vendor_id: 0x10ee,
        vendor_part_id: 0x9038,
    };
    let port =
        PortAttr { state: PortState::Active, speed_gbps: 100, max_mtu: Mtu::Mtu4096, gid_tbl_len: 16, pkey_tbl_len: 1 };
    let text = rnic_perf::devinfo::devinfo("rnic_0000:01:00.0", &attr, &port);
    // devinfo.c: "\tvendor_id:\t\t\t0x%04x\n", "\tvendor_part_id:\t\t\t%d\n".
    assert!(text.contains("\tvendor_id:\t\t\t0x10ee\n\tvendor_part_id:\t\t\t36920\n"), "{text}");
    assert!(text.contains("\tnode_guid:\t\t\t0011:22ff:fe33:4455\n"), "{text}");
    assert!(text.contains("\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"), "{text}");
    let zero = DeviceAttr { vendor_id: 0, vendor_part_id: 0, ..attr };
    let text = rnic_perf::devinfo::devinfo("rnic_sim", &zero, &port);
    assert!(text.contains("\tvendor_id:\t\t\t0x0000\n\tvendor_part_id:\t\t\t0\n"), "{text}");
}

/// `make demo`'s perftest part (`rnic_perf::demo`) at two sizes: perftest's
/// header, address lines and BW table for write_bw and read_bw between two
/// simulated NICs, the figures the RTL gives (deterministic: the simulator's
/// clock), every frame of the pcap with a good ICRC and as many as the
/// messages need, the plot with one line per test and a point per size.
#[cfg(feature = "sim")]
#[test]
fn the_demo_prints_perftests_tables_and_writes_a_pcap_and_a_plot() {
    use rnic_perf::demo::{iters_for, run_sizes};
    use rnic_proto::opcode::Opcode;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("perf_demo");
    let sizes = [64u64, 4096];
    let mut out = vec![];
    let (sweeps, files) = run_sizes(&mut out, &dir, &sizes).unwrap();
    let text = String::from_utf8(out).unwrap();
    for title in ["RDMA_Write BW Test", "RDMA_Read BW Test"] {
        assert_eq!(text.matches(title).count(), 1, "{title}:\n{text}");
    }
    assert_eq!(text.matches(&bw_table_header(true)).count(), 2, "{text}");
    assert_eq!(sweeps.len(), 2);
    for s in &sweeps {
        let got: Vec<(u64, u64)> = s.rows.iter().map(|r| (r.size, r.iters)).collect();
        let want: Vec<(u64, u64)> = sizes.iter().map(|&z| (z, iters_for(z))).collect();
        assert_eq!(got, want, "{:?}", s.verb);
        for r in &s.rows {
            assert!(text.contains(&bw_row(r, true)), "{r:?} not printed:\n{text}");
        }
    }
    // the RTL's figures at 4 KiB (the core's cycles at 250 MHz; they move when the RTL's speed does)
    let at = |k: usize| (sweeps[k].rows[1].bw_avg * 100.0).round() / 100.0;
    // (session 35, `sq_ahead`: 28.49 and 19.82 before the WQE read-ahead;
    // session 38, the MAC's address filter on the receive path: read_bw 26.19 before;
    // session 40, `xlate_ahead`'s answer FIFO on the responder's key checks: 26.15 before;
    // session 41, a window per QP in `sq_ahead`: a window's own reads 2 cycles later, 77.28 before)
    assert_eq!((at(0), at(1)), (77.10, 26.11), "write_bw and read_bw at 4 KiB, Gb/s:\n{text}");
    // the pcap: every frame good; the WRITE packets and READ responses the messages need (MTU 4096)
    let pcap = std::fs::read(&files.pcap).unwrap();
    let frames = rnic_proto::pcap::read_capture(&pcap).unwrap();
    let (mut writes, mut responses, mut reads) = (0u64, 0u64, 0u64);
    for f in &frames {
        let p = rnic_proto::decode_frame(&f.data).unwrap();
        assert!(p.icrc_ok && p.ip_checksum_ok(), "a frame with a bad ICRC or checksum");
        // from its sender's port_mac to its receiver's (IPv4: the source address at 26)
        use rnic_tb::sim_net::{nic_ip, nic_mac};
        let from = usize::from(f.data[26..30] != nic_ip(0));
        assert_eq!((&f.data[0..6], &f.data[6..12]), (&nic_mac(1 - from)[..], &nic_mac(from)[..]));
        match p.bth.opcode {
            Opcode::RcWriteOnly | Opcode::RcWriteFirst | Opcode::RcWriteMiddle | Opcode::RcWriteLast => writes += 1,
            Opcode::RcReadResponseOnly
            | Opcode::RcReadResponseFirst
            | Opcode::RcReadResponseMiddle
            | Opcode::RcReadResponseLast => responses += 1,
            Opcode::RcReadRequest => reads += 1,
            _ => {}
        }
    }
    let packets: u64 = sizes.iter().map(|&z| iters_for(z) * z.div_ceil(4096)).sum();
    let msgs: u64 = sizes.iter().map(|&z| iters_for(z)).sum();
    assert_eq!((writes, responses, reads), (packets, packets, msgs), "packets in the pcap");
    let svg = std::fs::read_to_string(&files.plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    let lines: Vec<&str> = svg.lines().filter(|l| l.starts_with("<polyline")).collect();
    assert_eq!(lines.len(), 2, "{svg}");
    for l in lines {
        assert_eq!(l.matches(',').count(), sizes.len(), "a point per size: {l}");
    }
}

#[test]
fn sim_wire_option_names_two_sockets_and_an_address() {
    let o = parse(&argv("rnic-perf write_bw --sim_wire /tmp/a.sock,/tmp/b.sock,10.99.0.2")).unwrap();
    assert_eq!(
        o.device,
        DeviceSel::SimWire {
            local: "/tmp/a.sock".into(),
            peer: "/tmp/b.sock".into(),
            ip: [10, 99, 0, 2],
            mac: [2, 0, 10, 99, 0, 2]
        }
    );
    let o = parse(&argv("rnic-perf write_bw --sim_wire a,b,10.99.0.2,02:00:00:00:00:02")).unwrap();
    assert!(matches!(o.device, DeviceSel::SimWire { mac: [2, 0, 0, 0, 0, 2], .. }));
    let o = parse(&argv("rnic-perf write_bw -d sim --sim_wire=a,b,1.2.3.4")).unwrap();
    assert!(matches!(o.device, DeviceSel::SimWire { ip: [1, 2, 3, 4], .. }));
    for bad in ["a,b", "a,b,c", ",b,1.2.3.4", "a,,1.2.3.4", "a,b,1.2.3.4,5", "a,b,1.2.3.4,02:00:00:00:00:02,x"] {
        let e = parse(&argv(&format!("rnic-perf write_bw --sim_wire {bad}"))).unwrap_err();
        assert!(matches!(&e, OptError::BadValue { option, .. } if option == "--sim_wire"), "{bad}: {e:?}");
    }
    // a long-only option takes no short form
    assert!(matches!(parse(&argv("rnic-perf write_bw -z5")), Err(OptError::UnknownOption(_))));
}

/// perftest's exchanges around the measurements, as write_bw.c, read_bw.c,
/// atomic_bw.c and send_bw.c at v4.5-0.17 run them (docs/interop.md).
#[test]
fn bw_schedules_are_perftests() {
    use rnic_perf::run::{bw_schedule, BwSchedule};
    let plan = |cmd: &str, client: bool| bw_schedule(&parse(&argv(cmd)).unwrap(), client);
    let one_way = |measures| BwSchedule {
        measures,
        receives: false,
        sync_before: false,
        sync_after: false,
        report_per_size: false,
        report_at_end: true,
    };
    for t in ["write_bw", "read_bw", "atomic_bw"] {
        assert_eq!(plan(&format!("rnic-perf {t}"), true), one_way(true), "{t} client");
        assert_eq!(plan(&format!("rnic-perf {t}"), false), one_way(false), "{t} server");
    }
    let duplex = BwSchedule {
        measures: true,
        receives: false,
        sync_before: true,
        sync_after: false,
        report_per_size: true,
        report_at_end: false,
    };
    assert_eq!(plan("rnic-perf write_bw -b", false), duplex);
    assert_eq!(plan("rnic-perf write_bw -b -a", true), BwSchedule { sync_after: true, ..duplex });
    assert_eq!(plan("rnic-perf atomic_bw -b", true), duplex);
    let send = BwSchedule {
        measures: true,
        receives: false,
        sync_before: true,
        sync_after: false,
        report_per_size: false,
        report_at_end: false,
    };
    assert_eq!(plan("rnic-perf send_bw", true), send);
    assert_eq!(plan("rnic-perf send_bw", false), BwSchedule { receives: true, ..send });
    assert_eq!(plan("rnic-perf send_bw -a", false), BwSchedule { receives: true, sync_after: true, ..send });
}

/// Two processes of `bin`, each with its own simulated NIC, the NICs on a
/// datagram socket wire: `first` (which listens) spawned, then `second`
/// (which connects to 127.0.0.1) run, again while the first is not
/// listening yet (its NIC's bring-up comes first); `-E`, `-p` and
/// `--sim_wire` added to both. Returns both outputs, stdout then stderr.
#[cfg(feature = "sim")]
/// Two simulated NICs on a datagram socket wire in a fresh directory: the
/// arguments that put the first process (the listener, 10.0.0.1) and the
/// second (the connector, 10.0.0.2) on it, each naming the other's MAC
/// (`--sim_wire`'s default from its address), one TCP port for both.
#[cfg(feature = "sim")]
struct SocketWire {
    dir: std::path::PathBuf,
    first: Vec<String>,
    second: Vec<String>,
}

#[cfg(feature = "sim")]
impl SocketWire {
    fn new(tag: &str) -> SocketWire {
        let dir = std::env::temp_dir().join(format!("rnic_wire_{}_{tag}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.sock"), dir.join("b.sock"));
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string();
        let wire = |me: &std::path::Path, peer: &std::path::Path, ip: &str| {
            format!("{},{},{ip}", me.display(), peer.display())
        };
        let args = |mac: &str, w: String| ["-p", &port, "-E", mac, "--sim_wire", &w].map(String::from).to_vec();
        let first = args("02:00:0a:00:00:02", wire(&a, &b, "10.0.0.1"));
        let mut second = args("02:00:0a:00:00:01", wire(&b, &a, "10.0.0.2"));
        second.push("127.0.0.1".into());
        SocketWire { dir, first, second }
    }
}

#[cfg(feature = "sim")]
impl Drop for SocketWire {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(feature = "sim")]
fn on_a_socket_wire(bin: &str, first: &[&str], second: &[&str]) -> ((Option<i32>, String), (Option<i32>, String)) {
    use std::process::Stdio;
    let w = SocketWire::new(&first.join("_"));
    let listener =
        Command::new(bin).args(first).args(&w.first).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let text = |o: &std::process::Output| {
        let t = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        (o.status.code(), t)
    };
    let mut connector = None;
    for _ in 0..600 {
        let out = Command::new(bin).args(second).args(&w.second).output().unwrap();
        if !String::from_utf8_lossy(&out.stderr).contains("Connect: ") {
            connector = Some(out);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let connector = connector.expect("the first process listened");
    let listener = listener.wait_with_output().unwrap();
    (text(&listener), text(&connector))
}

/// Issue 13: two rnic-perf processes, each with its own simulated NIC, the
/// NICs joined by a datagram socket wire, run write_bw as perftest's server
/// and client would on two hosts; the server prints the client's figures.
#[cfg(feature = "sim")]
#[test]
fn two_processes_run_write_bw_over_a_socket_wire() {
    let test = ["write_bw", "-x", "1", "-n", "16", "-s", "4096"];
    let ((s_code, s_out), (c_code, c_out)) = on_a_socket_wire(env!("CARGO_BIN_EXE_rnic-perf"), &test, &test);
    assert_eq!(c_code, Some(0), "client: {c_out}");
    assert_eq!(s_code, Some(0), "server: {s_out}");
    let row = |out: &str| out.lines().find(|l| l.trim_start().starts_with("4096")).map(str::to_owned);
    let c_row = row(&c_out).unwrap_or_else(|| panic!("the client's row: {c_out}"));
    assert_eq!(row(&s_out).as_ref(), Some(&c_row), "the server prints the client's figures");
    let f: Vec<f64> = c_row.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    assert_eq!(&f[..2], &[4096.0, 16.0], "{c_row}");
    assert!(f[3] > 100.0, "an average above 100 MiB/s of device time: {c_row}");
    // 16 WRITEs of 4 KiB at the default 4096-byte MTU, ACKs back: what one
    // NIC sent, the other received, and no MAC FIFO dropped a frame
    let counts = |out: &str| {
        let line = out.lines().find(|l| l.contains("the simulated wire")).unwrap_or_else(|| panic!("{out}")).to_owned();
        let n: Vec<u64> =
            line.split_whitespace().filter_map(|w| w.trim_matches(|c| c == ',' || c == '(').parse().ok()).collect();
        (n[0], n[2], n[3])
    };
    let (c_sent, c_recv, c_drop) = counts(&c_out);
    let (s_sent, s_recv, s_drop) = counts(&s_out);
    assert!(c_sent >= 16, "{c_out}");
    assert_eq!((c_drop, s_drop), (0, 0), "no frame dropped: {c_out} {s_out}");
    assert!(s_recv >= 16 && c_recv >= 1 && s_sent >= 1, "{c_out} {s_out}");
}

/// rnic-verify between two processes, each with its own simulated NIC on a
/// socket wire: every RC opcode once (WRITE, WRITE with immediate, SEND,
/// SEND with immediate, READ, FETCH_ADD, CMP_SWAP), the bytes and the
/// completions checked on both sides (docs/interop.md, "Data verified").
#[cfg(feature = "sim")]
#[test]
fn rnic_verify_checks_every_opcode_between_two_processes() {
    let bin = env!("CARGO_BIN_EXE_rnic-verify");
    let ((resp_code, resp), (req_code, req)) = on_a_socket_wire(bin, &["responder"], &["requester"]);
    assert_eq!(req_code, Some(0), "{req}");
    assert_eq!(resp_code, Some(0), "{resp}");
    for (out, checks) in [(&req, 3), (&resp, 11)] {
        assert_eq!(out.lines().filter(|l| l.trim_start().starts_with("ok ")).count(), checks, "{out}");
        assert!(!out.contains("FAIL") && out.contains("every check passed"), "{out}");
    }
    for (name, _) in rnic_perf::verify::REQUESTS {
        assert!(req.contains(&format!("done {name}")), "{name}: {req}");
    }
}

#[test]
fn verify_options_and_the_pattern() {
    use rnic_perf::verify::*;
    let o = parse(&argv("rnic-verify requester --sim_wire a,b,10.0.0.2 -E 02:00:00:00:00:01 -p 9 -x 2 h")).unwrap();
    assert!(o.requester);
    assert_eq!((o.port, o.gid_index, o.host.as_deref()), (9, 2, Some("h")));
    assert_eq!(
        o.device,
        DeviceSel::SimWire { local: "a".into(), peer: "b".into(), ip: [10, 0, 0, 2], mac: [2, 0, 10, 0, 0, 2] }
    );
    assert!(!parse(&argv("rnic-verify responder")).unwrap().requester);
    for bad in ["rnic-verify", "rnic-verify both", "rnic-verify requester -p", "rnic-verify requester a b"] {
        assert!(parse(&argv(bad)).is_err(), "{bad}");
    }
    // the C half computes the same bytes: (i * 7 + seed + (i >> 8)) & 0xff
    assert_eq!((pattern(0, SEED_REQ), pattern(1, SEED_REQ), pattern(256, SEED_RESP)), (0x5a, 0x61, 0xa6));
}

/// Issue 14: rnic-pingpong takes ibv_rc_pingpong's options, short and
/// long, with its defaults, and refuses what the device has not.
#[test]
fn pingpong_options_are_rc_pingpongs() {
    use rnic_perf::pingpong::{self, PingpongOptions};
    let o = pingpong::parse(&argv("rnic-pingpong")).unwrap();
    assert_eq!(o, PingpongOptions::default());
    assert_eq!((o.port, o.size, o.rx_depth, o.iters, o.mtu, o.gid_index), (18515, 4096, 500, 1000, Mtu::Mtu1024, None));
    let o = pingpong::parse(&argv(
        "rnic-pingpong -p 7000 -s 0x100 -m 4096 -r 16 -n 20 -l 3 -e -g 1 -E 02:00:00:00:00:07 --sim_wire a,b,10.0.0.2 srv",
    ))
    .unwrap();
    assert_eq!((o.port, o.size, o.mtu, o.rx_depth, o.iters, o.sl), (7000, 256, Mtu::Mtu4096, 16, 20, 3));
    assert_eq!((o.use_event, o.gid_index, o.server.as_deref()), (true, Some(1), Some("srv")));
    assert_eq!(o.dest_mac, Some([2, 0, 0, 0, 0, 7]));
    assert_eq!(
        o.device,
        DeviceSel::SimWire { local: "a".into(), peer: "b".into(), ip: [10, 0, 0, 2], mac: [2, 0, 10, 0, 0, 2] }
    );
    let l = pingpong::parse(&argv("rnic-pingpong --port=7000 --size 256 --mtu=2048 --iters=5 --gid-idx=1 --events"))
        .unwrap();
    assert_eq!((l.port, l.size, l.mtu, l.iters, l.gid_index, l.use_event), (7000, 256, Mtu::Mtu2048, 5, Some(1), true));
    for bad in ["-m 1000", "-m 8192", "-p 70000", "-o", "-t", "-r 1", "-s", "a b", "-x 1"] {
        assert!(pingpong::parse(&argv(&format!("rnic-pingpong {bad}"))).is_err(), "{bad}");
    }
    assert_eq!(pingpong::mtu_from_bytes(256), Some(Mtu::Mtu256));
    assert_eq!(
        (pingpong::mtu_from_bytes(512), pingpong::mtu_from_bytes(4096)),
        (Some(Mtu::Mtu512), Some(Mtu::Mtu4096))
    );
}

/// rc_pingpong's lines, from its format strings: `"  local address:  LID
/// 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n"` (GID by `inet_ntop`),
/// `"%lld bytes in %.2f seconds = %.2f Mbit/sec\n"`, `"%d iters in %.2f
/// seconds = %.2f usec/iter\n"`.
#[test]
fn pingpong_lines_are_rc_pingpongs() {
    use rnic_perf::pingpong::{address_line, figure_lines};
    let mut ep = QpEndpoint::new(0x11, rnic_driver::ipv4_gid([10, 99, 0, 2]));
    ep.psn = 0xabcdef;
    assert_eq!(
        address_line(false, &ep),
        "  local address:  LID 0x0000, QPN 0x000011, PSN 0xabcdef, GID ::ffff:10.99.0.2\n"
    );
    let ep = QpEndpoint { psn: 1, ..QpEndpoint::new(0x12, [0; 16]) };
    assert_eq!(address_line(true, &ep), "  remote address: LID 0x0000, QPN 0x000012, PSN 0x000001, GID ::\n");
    // 1000 iterations of 4096 bytes each way in 0.5 s
    assert_eq!(
        figure_lines(4096, 1000, 500_000_000),
        "8192000 bytes in 0.50 seconds = 131.07 Mbit/sec\n1000 iters in 0.50 seconds = 500.00 usec/iter\n"
    );
}

/// Issue 14: two rnic-pingpong processes, each with its own simulated NIC
/// on a socket wire, run ibv_rc_pingpong's exchange and loop, the server
/// waiting on completion events; every message arrives as rc_pingpong's
/// bytes, into a buffer poisoned before it could land.
#[cfg(feature = "sim")]
#[test]
fn two_rnic_pingpong_processes_exchange_checked_messages() {
    let bin = env!("CARGO_BIN_EXE_rnic-pingpong");
    let args = ["-g", "1", "-n", "20", "-r", "4", "-s", "3000"];
    // the server sleeps on completion events (-e), the client polls
    let server = [&args[..], &["-e"]].concat();
    let ((s_code, s_out), (c_code, c_out)) = on_a_socket_wire(bin, &server, &args);
    assert_eq!(c_code, Some(0), "client: {c_out}");
    assert_eq!(s_code, Some(0), "server: {s_out}");
    for (out, me, peer) in [(&s_out, "10.0.0.1", "10.0.0.2"), (&c_out, "10.0.0.2", "10.0.0.1")] {
        assert!(out.contains("  local address:  LID 0x0000, QPN "), "{out}");
        assert!(out.contains(&format!("GID ::ffff:{me}\n")) && out.contains(&format!("GID ::ffff:{peer}\n")), "{out}");
        assert!(out.contains("120000 bytes in "), "20 x 3000 B each way: {out}");
        assert!(out.contains("rnic-pingpong: 20 messages received, every one 3000 bytes of 0x7b"), "{out}");
        let usec: f64 = out
            .lines()
            .find_map(|l| l.strip_prefix("20 iters in ")?.split(" = ").nth(1)?.strip_suffix(" usec/iter")?.parse().ok())
            .unwrap_or_else(|| panic!("{out}"));
        assert!(usec > 0.5 && usec < 50.0, "a round trip of device time: {usec} us");
    }
    // 3000 B at the 1024-byte default MTU: 3 packets per message, 20 each way
    let sent = |out: &str| -> u64 {
        let line = out.lines().find(|l| l.contains("the simulated wire")).unwrap_or_else(|| panic!("{out}")).to_owned();
        line.split(|c: char| !c.is_ascii_digit()).find(|w| !w.is_empty()).unwrap().parse().unwrap()
    };
    assert!(sent(&s_out) >= 60 && sent(&c_out) >= 60, "{s_out}\n{c_out}");
}

/// `--sim_wire`'s MAC is the core's `port_mac` strap: the register file
/// reads it back in `id_mac_*`, the driver takes it as the port's MAC (the
/// source MAC of every path) and derives GID 0 from it; GID 1 is the IPv4
/// address. Before session 37 `id_mac_*` read 0.
#[cfg(feature = "sim")]
#[test]
fn the_simulated_nic_reads_back_its_mac_strap() {
    let dir = std::env::temp_dir().join(format!("rnic_mac_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wire = format!("{},{},10.0.0.9,02:12:34:56:78:9a", dir.join("a.sock").display(), dir.join("b.sock").display());
    let sel = rnic_perf::options::parse_sim_wire(&wire).unwrap();
    let opened = rnic_perf::device::open(&sel).unwrap();
    let mac = [0x02, 0x12, 0x34, 0x56, 0x78, 0x9a];
    assert_eq!(opened.ctx.query_device().mac, mac);
    assert_eq!(opened.ctx.query_gid(1, 0).unwrap(), rnic_driver::link_local_gid(mac));
    assert_eq!(opened.ctx.query_gid(1, 1).unwrap(), rnic_driver::ipv4_gid([10, 0, 0, 9]));
    drop(opened);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 13: `-b` with SEND (perftest's `run_iter_bi`): both processes
/// send 16 messages and take the other's 16, reposting receives (`-r 4`,
/// fewer than the messages) as they complete; each prints the sum of both
/// directions' bandwidth. Before session 37 this was refused (`PerfError::NotYet`).
#[cfg(feature = "sim")]
#[test]
fn two_processes_run_send_bw_both_ways() {
    let test = ["send_bw", "-b", "-x", "1", "-n", "16", "-r", "4", "-s", "4096"];
    let ((s_code, s_out), (c_code, c_out)) = on_a_socket_wire(env!("CARGO_BIN_EXE_rnic-perf"), &test, &test);
    assert_eq!(c_code, Some(0), "client: {c_out}");
    assert_eq!(s_code, Some(0), "server: {s_out}");
    for out in [&s_out, &c_out] {
        assert!(out.contains("Send Bidirectional BW Test"), "{out}");
        let row = out.lines().find(|l| l.trim_start().starts_with("4096")).unwrap_or_else(|| panic!("{out}"));
        let f: Vec<f64> = row.split_whitespace().filter_map(|x| x.parse().ok()).collect();
        // this side's 16 iterations, the bandwidth both sides' sum (bw_sum)
        assert_eq!(&f[..2], &[4096.0, 16.0], "{row}");
        assert!(f[3] > 100.0, "{row}");
    }
}

/// Issue 13: a duration run (`-D`) with packets moving. A real second is
/// 250 million core cycles, hours of simulation, so `--sim_second_ns`
/// (ours, the simulator only) makes each second of `-D` and `-f` 20 us of
/// device time: `-D 4 -f 1` counts the WRITEs completed in the 40 us
/// between the first and the last 20 us. The row's figures are in real
/// device time, so iterations x size over the average bandwidth must
/// give back that window.
#[cfg(feature = "sim")]
#[test]
fn a_duration_run_moves_packets_on_a_short_simulated_second() {
    let test = ["write_bw", "-x", "1", "-D", "4", "-f", "1", "--sim_second_ns", "20000", "-s", "4096"];
    let ((s_code, s_out), (c_code, c_out)) = on_a_socket_wire(env!("CARGO_BIN_EXE_rnic-perf"), &test, &test);
    assert_eq!(c_code, Some(0), "client: {c_out}");
    assert_eq!(s_code, Some(0), "server: {s_out}");
    let row = c_out.lines().find(|l| l.trim_start().starts_with("4096")).unwrap_or_else(|| panic!("{c_out}"));
    let f: Vec<f64> = row.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    let (iters, peak, avg) = (f[1], f[2], f[3]);
    // two processes, each its own NIC's clock: the count varies from run to
    // run (116 to 140 seen), about a WRITE every 300 ns
    assert!(iters >= 60.0, "WRITEs counted in the window: {row}");
    assert_eq!(peak, 0.0, "a duration run measures no peak: {row}");
    assert!(avg > 5000.0, "the WRITEs back to back: {row}");
    let window_ns = iters * 4096.0 * 1e9 / (avg * 1048576.0);
    assert!(
        (34_000.0..=40_500.0).contains(&window_ns),
        "the counted window, {window_ns} ns, is the middle 40 us: {row}"
    );
}

/// `--sim_second_ns` is for duration runs on the simulator.
#[test]
fn sim_second_is_for_duration_runs_on_the_simulator() {
    let o = parse(&argv("rnic-perf write_bw -D 4 --sim_second_ns 1000")).unwrap();
    assert_eq!((o.second_ns(), o.sim_second_ns), (1000, Some(1000)));
    assert_eq!(parse(&argv("rnic-perf write_bw -D 4")).unwrap().second_ns(), 1_000_000_000);
    let bad = |s: &str| parse(&argv(s)).unwrap_err();
    assert_eq!(
        bad("rnic-perf write_bw --sim_second_ns 1000"),
        OptError::Conflict("--sim_second_ns is for duration runs (-D, --run_infinitely)")
    );
    assert_eq!(
        bad("rnic-perf write_bw -D 4 -d 0000:01:00.0 --sim_second_ns 1000"),
        OptError::Conflict("--sim_second_ns is the simulator's: only with -d sim")
    );
    assert!(
        matches!(bad("rnic-perf write_bw -D 4 --sim_second_ns 0"), OptError::BadValue { option, .. } if option == "--sim_second_ns")
    );
}

/// The latency side of `-D`: write_lat ping-pongs one WRITE at a time for
/// the short simulated seconds of the test above; the duration table's
/// iterations and average latency (half a round trip) account for the
/// 40 us counted.
#[cfg(feature = "sim")]
#[test]
fn a_duration_latency_run_ping_pongs_on_a_short_simulated_second() {
    let test = ["write_lat", "-x", "1", "-D", "4", "-f", "1", "--sim_second_ns", "20000", "-s", "64"];
    let ((s_code, s_out), (c_code, c_out)) = on_a_socket_wire(env!("CARGO_BIN_EXE_rnic-perf"), &test, &test);
    assert_eq!(c_code, Some(0), "client: {c_out}");
    assert_eq!(s_code, Some(0), "server: {s_out}");
    assert!(c_out.contains("t_avg[usec]    tps average"), "the duration latency table: {c_out}");
    let row = c_out.lines().find(|l| l.trim_start().starts_with("64 ")).unwrap_or_else(|| panic!("{c_out}"));
    let f: Vec<f64> = row.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    let (iters, t_avg_us, tps) = (f[1], f[2], f[3]);
    assert!(iters >= 3.0, "round trips counted in the window: {row}");
    // each side waits for the other's WRITE: the side whose clock ends
    // first stops, and the other's last wait gives up at its own end
    // (before, it waited for ever: found by this test)
    let window_us = iters / tps * 1e6;
    assert!(
        (20.0..=40.5).contains(&window_us),
        "the counted window, {window_us} us, is within the middle 40 us: {row}"
    );
    let rtt_us = window_us / iters;
    assert!((0.6..=1.6).contains(&(2.0 * t_avg_us / rtt_us)), "t_avg is half a round trip ({rtt_us} us): {row}");
}

/// `--run_infinitely` with packets moving: the client prints a row every
/// `-D` (short simulated) second until it is stopped; the server then
/// says " Client closed connection" and exits, as perftest's does.
#[cfg(feature = "sim")]
#[test]
fn run_infinitely_prints_a_row_per_simulated_second_until_stopped() {
    use std::io::BufRead;
    use std::process::Stdio;
    let bin = env!("CARGO_BIN_EXE_rnic-perf");
    // each row's run starts with nothing outstanding (the previous row's
    // drained): -t 32 fills the pipe in about 11 us of a 40 us second
    let test =
        ["write_bw", "-x", "1", "--run_infinitely", "-D", "1", "--sim_second_ns", "40000", "-t", "32", "-s", "4096"];
    let w = SocketWire::new("run_infinitely");
    let server =
        Command::new(bin).args(test).args(&w.first).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut rows = vec![];
    for _ in 0..600 {
        let mut client =
            Command::new(bin).args(test).args(&w.second).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let lines = std::io::BufReader::new(client.stdout.take().unwrap()).lines();
        for l in lines.map_while(Result::ok) {
            if l.trim_start().starts_with("4096") {
                rows.push(l);
                if rows.len() == 3 {
                    break;
                }
            }
        }
        if !rows.is_empty() {
            client.kill().unwrap();
            client.wait().unwrap();
            break;
        }
        // not connected yet: the server was not listening
        client.wait().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(rows.len(), 3, "three rows before the client was stopped: {rows:?}");
    eprintln!("{}", rows.join("\n"));
    for row in &rows {
        let f: Vec<f64> = row.split_whitespace().filter_map(|x| x.parse().ok()).collect();
        // each row: the WRITEs completed in one 40 us second, about a WRITE every 300 ns
        assert!(f[1] >= 40.0 && f[3] > 5000.0, "{row}");
    }
    let out = server.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains(" Client closed connection"), "{text}");
}
