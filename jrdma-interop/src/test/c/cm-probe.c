/*
 * cm-probe: a Linux rdma_cm passive side for jrdma's CM interop tests (RxeCmRobustInteropTest),
 * because no packaged tool rejects with private data or reports TIMEWAIT_EXIT.
 *
 *   cm-probe reject ADDR PORT TEXT   listen on ADDR:PORT; answer the first connection request with
 *                                    rdma_reject(3) carrying TEXT (and its NUL) as private data
 *   cm-probe accept ADDR PORT        listen on ADDR:PORT; accept the first connection request (an
 *                                    RC QP, rdma_accept(3) defaults); on DISCONNECTED answer with
 *                                    rdma_disconnect(3) and wait for TIMEWAIT_EXIT
 *
 * Prints "listening" once listening, then one line per event: "event RDMA_CM_EVENT_X status N".
 * Exit 0 when done (reject: the REJ sent; accept: TIMEWAIT_EXIT came), 1 on any error.
 * Built on the host (gcc, librdmacm-dev: the guests have no compiler) into the lab's shared
 * directory and run in a guest as /shared/cm-probe.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

static void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id, *conn = NULL;
	struct rdma_addrinfo hints, *res;
	struct rdma_cm_event *ev;
	int reject;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4 || (strcmp(argv[1], "reject") && strcmp(argv[1], "accept")) ||
	    (!strcmp(argv[1], "reject") && argc < 5)) {
		fprintf(stderr, "usage: cm-probe reject ADDR PORT TEXT | accept ADDR PORT\n");
		return 1;
	}
	reject = !strcmp(argv[1], "reject");
	memset(&hints, 0, sizeof hints);
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	if (rdma_getaddrinfo(argv[2], argv[3], &hints, &res))
		die("rdma_getaddrinfo");
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	if (rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_bind_addr(listen_id, res->ai_src_addr))
		die("rdma_bind_addr");
	if (rdma_listen(listen_id, 1))
		die("rdma_listen");
	printf("listening\n");
	for (;;) {
		enum rdma_cm_event_type type;

		if (rdma_get_cm_event(ch, &ev))
			die("rdma_get_cm_event");
		type = ev->event;
		printf("event %s status %d\n", rdma_event_str(type), ev->status);
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			struct rdma_cm_id *id = ev->id;

			rdma_ack_cm_event(ev);
			if (reject) {
				if (rdma_reject(id, argv[4], strlen(argv[4]) + 1))
					die("rdma_reject");
				printf("rejected with private data \"%s\"\n", argv[4]);
				rdma_destroy_id(id);
				return 0;
			} else {
				struct ibv_qp_init_attr attr;

				memset(&attr, 0, sizeof attr);
				attr.qp_type = IBV_QPT_RC;
				attr.cap.max_send_wr = attr.cap.max_recv_wr = 4;
				attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
				if (rdma_create_qp(id, NULL, &attr))
					die("rdma_create_qp");
				if (rdma_accept(id, NULL))
					die("rdma_accept");
				conn = id;
			}
			continue;
		}
		rdma_ack_cm_event(ev);
		if (type == RDMA_CM_EVENT_DISCONNECTED && conn) {
			if (rdma_disconnect(conn))
				die("rdma_disconnect");
		} else if (type == RDMA_CM_EVENT_TIMEWAIT_EXIT) {
			return 0;
		} else if (type != RDMA_CM_EVENT_ESTABLISHED) {
			return 1;
		}
	}
}
