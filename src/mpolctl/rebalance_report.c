/* rebalance_report.c - print what `mpolctl rebalance` did (see rebalance_report.h). */
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "cli.h"
#include "rebalance_report.h"

static json_object *node_counts(const uint64_t *v, int max_node)
{
	json_object *o = json_object_new_object();
	char key[16];

	for (int n = 0; n <= max_node; n++) {
		if (!v[n])
			continue;
		snprintf(key, sizeof(key), "%d", n);
		json_object_object_add(o, key, json_object_new_int64((int64_t)v[n]));
	}
	return o;
}

static void print_counts(const char *label, const uint64_t *v, int max_node)
{
	printf("  %-7s", label);
	for (int n = 0; n <= max_node; n++)
		if (v[n])
			printf(" N%d=%llu", n, (unsigned long long)v[n]);
	printf("\n");
}

void rebalance_print_text(bool dry_run, const char *why, const struct rebalance_target *tgs, int n, const char *lease)
{
	printf("backend: %s\n", why);
	for (int i = 0; i < n; i++) {
		const struct rebalance_target *tg = &tgs[i];
		const struct smpol_rebalance_result *r = &tg->r;
		char nodes[256] = "", weights[256] = "";

		if (tg->rc != 0 && !r->exited) {
			printf("pid %d: %s: %s\n", (int)tg->t.pid, tg->rc > 0 ? "skipped" : "failed", tg->why);
			continue;
		}
		smpol_plan_format_nodes(&tg->plan, nodes, sizeof(nodes));
		smpol_plan_format_weights(&tg->plan, weights, sizeof(weights));
		printf("pid %d (%s): spec %s -> nodes %s weights %s%s\n", (int)tg->t.pid, tg->t.comm, tg->spec_text,
		       nodes, weights, r->exited ? " (exited during the run)" : "");
		printf("  target from: %s\n", tg->source);
		for (int c = 0; c < tg->ncpuset; c++)
			printf("  cpuset: %s %s -> %s%s\n", tg->cpuset[c].path, tg->cpuset[c].before, tg->cpuset[c].after,
			       dry_run ? " (would be written)" : "");
		print_counts("before", r->before, r->max_node);
		print_counts("target", r->target, r->max_node);
		if (!dry_run)
			print_counts("after", r->after, r->max_node);
		printf("  pages %llu, minimum to move %llu, %s %llu (planned %llu) in %.2f s",
		       (unsigned long long)r->pages, (unsigned long long)r->minimum, dry_run ? "would move" : "moved",
		       (unsigned long long)(dry_run ? r->planned : r->moved), (unsigned long long)r->planned,
		       r->seconds);
		if (!dry_run && r->seconds > 0)
			printf(", %.0f pages/s", (double)r->moved / r->seconds);
		printf("\n");
		if (smpol_rebalance_not_moved(r))
			printf("  not moved: %llu busy or pinned, %llu shared with other processes, %llu target full, "
			       "%llu vanished, %llu other\n",
			       (unsigned long long)r->busy, (unsigned long long)r->shared, (unsigned long long)r->nomem,
			       (unsigned long long)r->vanished, (unsigned long long)r->other);
		if (r->policies)
			printf("  policy set on %d mapping(s) with process_mbind: their new pages follow the plan\n",
			       r->policies);
		if (r->note[0])
			printf("  note: %s\n", r->note);
		if (r->interrupted)
			printf("  interrupted: stopped after the current batch; run again to resume\n");
	}
	if (*lease)
		printf("lease: %s\n", lease);
}

int rebalance_print_json(bool dry_run, const char *job, enum smpol_backend backend, const char *why,
		      const struct rebalance_target *tgs, int n, const char *lease)
{
	json_object *root = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(root, "backend", json_object_new_string(smpol_backend_name(backend)));
	json_object_object_add(root, "why", json_object_new_string(why));
	json_object_object_add(root, "dry_run", json_object_new_boolean(dry_run));
	if (job)
		json_object_object_add(root, "job", json_object_new_string(job));
	for (int i = 0; i < n; i++) {
		const struct rebalance_target *tg = &tgs[i];
		const struct smpol_rebalance_result *r = &tg->r;
		json_object *t = json_object_new_object(), *nm, *nodes, *weights;

		json_object_object_add(t, "pid", json_object_new_int(tg->t.pid));
		json_object_object_add(t, "comm", json_object_new_string(tg->t.comm));
		json_object_object_add(t, "status", json_object_new_string(
			tg->rc == 0 ? (r->interrupted ? "interrupted" : "done") :
			r->exited ? "exited" : tg->rc > 0 ? "skipped" : "failed"));
		if (tg->rc != 0 && !r->exited) {
			json_object_object_add(t, "reason", json_object_new_string(tg->why));
			json_object_array_add(arr, t);
			continue;
		}
		json_object_object_add(t, "spec", json_object_new_string(tg->spec_text));
		json_object_object_add(t, "source", json_object_new_string(tg->source));
		nodes = json_object_new_array();
		weights = json_object_new_array();
		for (int j = 0; j < tg->plan.nnodes; j++) {
			json_object_array_add(nodes, json_object_new_int(tg->plan.nodes[j]));
			json_object_array_add(weights, json_object_new_int((int)tg->plan.weights[j]));
		}
		json_object_object_add(t, "nodes", nodes);
		json_object_object_add(t, "weights", weights);
		json_object_object_add(t, "before", node_counts(r->before, r->max_node));
		json_object_object_add(t, "target", node_counts(r->target, r->max_node));
		json_object_object_add(t, "after", node_counts(r->after, r->max_node));
		json_object_object_add(t, "pages", json_object_new_int64((int64_t)r->pages));
		json_object_object_add(t, "minimum", json_object_new_int64((int64_t)r->minimum));
		json_object_object_add(t, "planned", json_object_new_int64((int64_t)r->planned));
		json_object_object_add(t, "moved", json_object_new_int64((int64_t)r->moved));
		nm = json_object_new_object();
		json_object_object_add(nm, "busy", json_object_new_int64((int64_t)r->busy));
		json_object_object_add(nm, "shared", json_object_new_int64((int64_t)r->shared));
		json_object_object_add(nm, "nomem", json_object_new_int64((int64_t)r->nomem));
		json_object_object_add(nm, "vanished", json_object_new_int64((int64_t)r->vanished));
		json_object_object_add(nm, "other", json_object_new_int64((int64_t)r->other));
		json_object_object_add(t, "not_moved", nm);
		json_object_object_add(t, "regions", json_object_new_int(r->regions));
		json_object_object_add(t, "policies", json_object_new_int(r->policies));
		if (tg->ncpuset) {
			json_object *cs = json_object_new_array();

			for (int c = 0; c < tg->ncpuset; c++) {
				json_object *one = json_object_new_object();

				json_object_object_add(one, "file", json_object_new_string(tg->cpuset[c].path));
				json_object_object_add(one, "before", json_object_new_string(tg->cpuset[c].before));
				json_object_object_add(one, "after", json_object_new_string(tg->cpuset[c].after));
				json_object_array_add(cs, one);
			}
			json_object_object_add(t, "cpuset", cs);
		}
		json_object_object_add(t, "seconds", json_object_new_double(r->seconds));
		if (r->note[0])
			json_object_object_add(t, "note", json_object_new_string(r->note));
		json_object_array_add(arr, t);
	}
	json_object_object_add(root, "tasks", arr);
	if (*lease)
		json_object_object_add(root, "lease", json_object_new_string(lease));
	return cli_print_json(root);
}
