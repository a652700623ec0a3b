/* rnic_verify: every RC opcode once, with its bytes checked on both sides
 * (issue 14). The guest's half of the pair whose other half is
 * `rnic-verify` (perf/src/verify.rs); docs/interop.md, "Data verified",
 * is the protocol both follow:
 *
 *   rnic_verify requester|responder [-p PORT] [-x GID_INDEX] [HOST]
 *
 * With HOST it connects to HOST:PORT, else it listens on PORT. Each side
 * sends one line "qpn psn rkey vaddr mtu gid\n" (hex, gid 32 digits), then
 * the requester runs its work requests one at a time and sends "done\n";
 * the responder checks its memory and answers "ok\n" or "bad WHAT\n".
 * Exit 0 when every check of both sides passed. */
#include <infiniband/verbs.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REGION 65536
#define SEED_REQ 0x5a
#define SEED_RESP 0xa5
#define ATOMIC_A 49152
#define ATOMIC_B 49160
#define V_A 0x0102030405060708ULL
#define V_B 0x1111111111111111ULL
#define SWAP_B 0x2222222222222222ULL
#define ADD_A 5ULL
#define IMM_WRITE 0x12345678u
#define IMM_SEND 0x9abcdef0u

static void die(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "rnic_verify: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static uint8_t pat(size_t i, unsigned seed) { return (uint8_t)(i * 7 + seed + (i >> 8)); }

static FILE *oob_in, *oob_out;

/* the exchange's socket as two streams: one FILE may not switch between
 * reading and writing without a seek, which a socket has not */
static void oob_open(const char *host, int port) {
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	if (host) {
		inet_pton(AF_INET, host, &a.sin_addr);
		if (connect(s, (void *)&a, sizeof a))
			die("cannot connect to %s:%d", host, port);
	} else {
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(s, (void *)&a, sizeof a) || listen(s, 1))
			die("cannot listen on %d", port);
		int c = accept(s, NULL, NULL);
		close(s);
		s = c;
	}
	oob_in = fdopen(s, "r");
	oob_out = fdopen(dup(s), "w");
	if (!oob_in || !oob_out)
		die("fdopen");
	setvbuf(oob_out, NULL, _IONBF, 0);
}

static void wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, const char *what) {
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			die("poll_cq");
		if (n == 0)
			continue;
		if (wc->status != IBV_WC_SUCCESS)
			die("%s: completion status %s", what, ibv_wc_status_str(wc->status));
		return;
	}
}

static int bad = 0;
static void expect(FILE *oob, int ok, const char *what) {
	if (!ok) {
		printf("  FAIL %s\n", what);
		if (oob)
			fprintf(oob, "bad %s\n", what);
		bad++;
	} else {
		printf("  ok   %s\n", what);
	}
}

static int range_is(const uint8_t *b, size_t at, size_t len, size_t from, unsigned seed) {
	for (size_t k = 0; k < len; k++)
		if (b[at + k] != pat(from + k, seed))
			return 0;
	return 1;
}

int main(int argc, char **argv) {
	if (argc < 2)
		die("usage: rnic_verify requester|responder [-p PORT] [-x GID] [HOST]");
	int req = !strcmp(argv[1], "requester"), port = 18600, gidx = 1;
	const char *host = NULL;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-p") && i + 1 < argc)
			port = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-x") && i + 1 < argc)
			gidx = atoi(argv[++i]);
		else
			host = argv[i];
	}
	struct ibv_device **dl = ibv_get_device_list(NULL);
	if (!dl || !dl[0])
		die("no RDMA device");
	struct ibv_context *ctx = ibv_open_device(dl[0]);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	uint8_t *buf = aligned_alloc(4096, REGION);
	for (size_t i = 0; i < REGION; i++)
		buf[i] = pat(i, req ? SEED_REQ : SEED_RESP);
	if (!req) {
		/* what the requester will write or send into, zeroed first */
		memset(buf, 0, 5000);
		memset(buf + 8192, 0, 3000);
		memset(buf + 16384, 0, 2000);
		memset(buf + 20480, 0, 100);
		uint64_t a = V_A, b = V_B;
		memcpy(buf + ATOMIC_A, &a, 8);
		memcpy(buf + ATOMIC_B, &b, 8);
	} else {
		memset(buf + 32768, 0, 6000);
		memset(buf + ATOMIC_A, 0, 16);
	}
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, REGION, access);
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1}};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);
	if (!mr || !cq || !qp)
		die("resources");
	struct ibv_port_attr pa;
	union ibv_gid gid;
	if (ibv_query_port(ctx, 1, &pa) || ibv_query_gid(ctx, 1, gidx, &gid))
		die("port or gid");
	srand48(time(NULL) ^ getpid());
	uint32_t psn = lrand48() & 0xffffff;
	oob_open(host, port);
	setvbuf(stdout, NULL, _IOLBF, 0);
	char g[33];
	for (int i = 0; i < 16; i++)
		sprintf(g + 2 * i, "%02x", gid.raw[i]);
	fprintf(oob_out, "%x %x %x %llx %x %s\n", qp->qp_num, psn, mr->rkey, (unsigned long long)(uintptr_t)buf, pa.active_mtu, g);
	unsigned rqpn, rpsn, rkey, rmtu;
	unsigned long long raddr;
	char rg[64];
	if (fscanf(oob_in, "%x %x %x %llx %x %63s", &rqpn, &rpsn, &rkey, &raddr, &rmtu, rg) != 6 || strlen(rg) != 32)
		die("the peer's line");
	union ibv_gid rgid;
	for (int i = 0; i < 16; i++)
		sscanf(rg + 2 * i, "%2hhx", &rgid.raw[i]);
	enum ibv_mtu mtu = rmtu < pa.active_mtu ? rmtu : pa.active_mtu;
	printf("rnic_verify %s: QPN %#x PSN %#x, the peer's QPN %#x PSN %#x, MTU %d\n", argv[1], qp->qp_num, psn, rqpn, rpsn,
	       128 << mtu);

	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1, .qp_access_flags = access};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("INIT");
	if (!req) {
		/* WRITE with immediate, SEND, SEND with immediate: three receives */
		struct ibv_sge s[3] = {{(uintptr_t)buf + 16384, 4096, mr->lkey}, {(uintptr_t)buf + 16384, 4096, mr->lkey},
			{(uintptr_t)buf + 20480, 4096, mr->lkey}};
		for (int i = 0; i < 3; i++) {
			struct ibv_recv_wr w = {.wr_id = 100 + i, .sg_list = &s[i], .num_sge = 1}, *badw;
			if (ibv_post_recv(qp, &w, &badw))
				die("post_recv");
		}
	}
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = rqpn;
	a.rq_psn = rpsn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = rgid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("RTR");
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				      IBV_QP_MAX_QP_RD_ATOMIC))
		die("RTS");
	/* both QPs ready before the first packet */
	fprintf(oob_out, "ready\n");
	char word[64];
	if (fscanf(oob_in, "%63s", word) != 1 || strcmp(word, "ready"))
		die("the peer is not ready");

	struct ibv_wc wc;
	if (req) {
		struct {
			enum ibv_wr_opcode op;
			size_t local, len, remote;
			uint32_t imm;
			uint64_t add_or_cmp, swap;
			const char *name;
		} w[] = {
			{IBV_WR_RDMA_WRITE, 0, 5000, 0, 0, 0, 0, "WRITE 5000 B"},
			{IBV_WR_RDMA_WRITE_WITH_IMM, 5000, 3000, 8192, IMM_WRITE, 0, 0, "WRITE with immediate 3000 B"},
			{IBV_WR_SEND, 10000, 2000, 0, 0, 0, 0, "SEND 2000 B"},
			{IBV_WR_SEND_WITH_IMM, 12000, 100, 0, IMM_SEND, 0, 0, "SEND with immediate 100 B"},
			{IBV_WR_RDMA_READ, 32768, 6000, 32768, 0, 0, 0, "READ 6000 B"},
			{IBV_WR_ATOMIC_FETCH_AND_ADD, ATOMIC_A, 8, ATOMIC_A, 0, ADD_A, 0, "FETCH_ADD"},
			{IBV_WR_ATOMIC_CMP_AND_SWP, ATOMIC_B, 8, ATOMIC_B, 0, V_B, SWAP_B, "CMP_SWAP"},
		};
		for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
			struct ibv_sge s = {(uintptr_t)buf + w[i].local, (uint32_t)w[i].len, mr->lkey};
			struct ibv_send_wr sw = {.wr_id = i, .sg_list = &s, .num_sge = 1, .opcode = w[i].op,
				.send_flags = IBV_SEND_SIGNALED}, *badw;
			sw.imm_data = htonl(w[i].imm);
			if (w[i].op == IBV_WR_ATOMIC_FETCH_AND_ADD || w[i].op == IBV_WR_ATOMIC_CMP_AND_SWP) {
				sw.wr.atomic.remote_addr = raddr + w[i].remote;
				sw.wr.atomic.rkey = rkey;
				sw.wr.atomic.compare_add = w[i].add_or_cmp;
				sw.wr.atomic.swap = w[i].swap;
			} else {
				sw.wr.rdma.remote_addr = raddr + w[i].remote;
				sw.wr.rdma.rkey = rkey;
			}
			if (ibv_post_send(qp, &sw, &badw))
				die("post_send %s", w[i].name);
			wait_wc(cq, &wc, w[i].name);
			printf("  done %s\n", w[i].name);
		}
		uint64_t fa, cs;
		memcpy(&fa, buf + ATOMIC_A, 8);
		memcpy(&cs, buf + ATOMIC_B, 8);
		expect(NULL, range_is(buf, 32768, 6000, 32768, SEED_RESP), "READ: the responder's bytes");
		expect(NULL, fa == V_A, "FETCH_ADD returned the original value");
		expect(NULL, cs == V_B, "CMP_SWAP returned the original value");
		fprintf(oob_out, "done\n");
		char line[256];
		while (fgets(line, sizeof line, oob_in)) {
			if (line[0] == '\n') /* the end of the "ready" line */
				continue;
			if (!strncmp(line, "ok", 2))
				break;
			printf("  the responder: %s", line);
			bad++;
		}
	} else {
		struct {
			enum ibv_wc_opcode op;
			int imm;
			uint32_t imm_val, len;
			const char *name;
		} r[] = {{IBV_WC_RECV_RDMA_WITH_IMM, 1, IMM_WRITE, 0, "WRITE with immediate's completion"},
			{IBV_WC_RECV, 0, 0, 2000, "SEND's completion"},
			{IBV_WC_RECV, 1, IMM_SEND, 100, "SEND with immediate's completion"}};
		for (int i = 0; i < 3; i++) {
			wait_wc(cq, &wc, r[i].name);
			int ok = wc.opcode == r[i].op && !!(wc.wc_flags & IBV_WC_WITH_IMM) == r[i].imm &&
				 (!r[i].imm || ntohl(wc.imm_data) == r[i].imm_val) && (!r[i].len || wc.byte_len == r[i].len) &&
				 wc.wr_id == (uint64_t)(100 + i);
			if (!ok)
				printf("  (opcode %d flags %#x imm %#x len %u wr_id %llu)\n", wc.opcode, wc.wc_flags, ntohl(wc.imm_data),
				       wc.byte_len, (unsigned long long)wc.wr_id);
			expect(oob_out, ok, r[i].name);
		}
		if (fscanf(oob_in, "%63s", word) != 1 || strcmp(word, "done"))
			die("no done from the requester");
		uint64_t fa, cs;
		memcpy(&fa, buf + ATOMIC_A, 8);
		memcpy(&cs, buf + ATOMIC_B, 8);
		expect(oob_out, range_is(buf, 0, 5000, 0, SEED_REQ), "WRITE's bytes");
		expect(oob_out, range_is(buf, 5000, 3192, 5000, SEED_RESP), "the bytes between, untouched");
		expect(oob_out, range_is(buf, 8192, 3000, 5000, SEED_REQ), "WRITE with immediate's bytes");
		expect(oob_out, range_is(buf, 16384, 2000, 10000, SEED_REQ), "SEND's bytes");
		expect(oob_out, range_is(buf, 20480, 100, 12000, SEED_REQ), "SEND with immediate's bytes");
		expect(oob_out, range_is(buf, 32768, 6000, 32768, SEED_RESP), "READ's source, untouched");
		expect(oob_out, fa == V_A + ADD_A, "FETCH_ADD's target");
		expect(oob_out, cs == SWAP_B, "CMP_SWAP's target");
		if (!bad)
			fprintf(oob_out, "ok\n");
	}
	printf("rnic_verify %s: %s\n", argv[1], bad ? "FAILED" : "every check passed");
	return bad ? 1 : 0;
}
