/*
 * The droid arena's tree (sample_trees/droid_arena.json) run by a game written in C:
 * its droids, and the leaves the tree uses (FindClosest, IsStronger, MoveTo, Attack,
 * Flee, Wander), are this file's; Arbor runs the tree through include/arbor.h.
 *
 *   droid_arena TREE STEPS TRACE [DROIDS]
 *
 * Steps droid 0 (and, with DROIDS > 1, the others, each on a team of its own) STEPS
 * times, 0.1 s a step, seed 0 (the first step also starts the tree: its entries carry
 * step 0), writing every droid's events to TRACE.
 * Alone in the arena, droid "titan" writes the trace `arbor run` writes for the arena's
 * scenario with titan alone (ffi/tests/c.rs checks that they are equal).
 *
 * Build (ffi/tests/c.rs does): cc -I ffi/include examples/c/droid_arena.c
 *   -L target/debug -larbor_ffi -lm -o droid_arena
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"

/* Fails the program with Arbor's message when a call does not return ARBOR_OK. */
#define CHECK(call)                                                                  \
    do {                                                                             \
        int32_t code_ = (call);                                                      \
        if (code_ != ARBOR_OK && code_ != ARBOR_HELD) {                              \
            fprintf(stderr, "%s:%d: %s: error %d: %s\n", __FILE__, __LINE__, #call,  \
                    (int)code_, arbor_last_error());                                 \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

/* ---- the game's world ----------------------------------------------------------- */

typedef struct Droid {
    const char *name;
    double x, y;
    double health, damage, range, speed;
    int team;
    double cooldown_left;
} Droid;

static Droid droids[5] = {
    {"titan", 2.5, 2.5, 150, 20, 1.5, 1.6, 0, 0},
    {"brute", 17.5, 2.5, 120, 14, 1.5, 1.8, 1, 0},
    {"scout", 2.5, 9.5, 60, 6, 1.5, 2.6, 2, 0},
    {"grunt", 17.5, 9.5, 90, 10, 1.5, 2.0, 3, 0},
    {"runt", 10.0, 6.0, 40, 4, 1.5, 2.8, 4, 0},
};
static int droid_count = 1;

static double distance(const Droid *a, const Droid *b) {
    return hypot(a->x - b->x, a->y - b->y);
}

/* The droid an entity id names: ids are 1 + the index. */
static Droid *entity(const ArborValue *v) {
    if (v->type != ARBOR_ENTITY || v->entity < 1 || v->entity > (uint64_t)droid_count)
        return NULL;
    Droid *d = &droids[v->entity - 1];
    return d->health > 0 ? d : NULL;
}

/* Moves `d` towards (tx, ty) by at most its speed times dt. */
static void step_towards(Droid *d, double tx, double ty, double dt) {
    double dx = tx - d->x, dy = ty - d->y, len = hypot(dx, dy), most = d->speed * dt;
    if (len <= most || len == 0) {
        d->x = tx;
        d->y = ty;
    } else {
        d->x += dx / len * most;
        d->y += dy / len * most;
    }
}

/* ---- the leaves ------------------------------------------------------------------- */

/* FindClosest: the closest droid of another team within max_distance, produced. */
static int32_t find_closest(void *user, void *agent, const ArborNode *node, double dt) {
    (void)user;
    (void)dt;
    Droid *me = agent;
    ArborValue max = {0};
    CHECK(arbor_call_field(node, "max_distance", &max));
    double reach = max.type == ARBOR_NUMBER || max.type == ARBOR_INT ? max.number : INFINITY;
    int best = -1;
    for (int i = 0; i < droid_count; i++) {
        Droid *d = &droids[i];
        if (d == me || d->team == me->team || d->health <= 0)
            continue;
        double at = distance(me, d);
        if (at <= reach && (best < 0 || at < distance(me, &droids[best])))
            best = i;
    }
    if (best < 0) {
        CHECK(arbor_call_fail_because(node, "none in reach"));
        return ARBOR_FAILURE;
    }
    CHECK(arbor_call_produce(node, (ArborValue){.type = ARBOR_ENTITY, .entity = (uint64_t)best + 1}));
    return ARBOR_SUCCESS;
}

/* IsStronger: whether this droid outlasts the one in in_context. */
static int32_t is_stronger(void *user, void *agent, const ArborNode *node) {
    (void)user;
    Droid *me = agent;
    ArborValue input = {0};
    CHECK(arbor_call_input(node, &input));
    Droid *other = entity(&input);
    return other && me->health * me->damage > other->health * other->damage;
}

/* MoveTo: walks to the droid in in_context until within arrive_distance. */
static int32_t move_to(void *user, void *agent, const ArborNode *node, double dt) {
    (void)user;
    Droid *me = agent;
    ArborValue input = {0}, arrive = {0};
    CHECK(arbor_call_input(node, &input));
    CHECK(arbor_call_field(node, "arrive_distance", &arrive));
    Droid *target = entity(&input);
    if (!target) {
        CHECK(arbor_call_fail_because(node, "target gone"));
        return ARBOR_FAILURE;
    }
    if (distance(me, target) <= arrive.number)
        return ARBOR_SUCCESS;
    step_towards(me, target->x, target->y, dt);
    return ARBOR_RUNNING;
}

/* Attack: hits the droid in in_context every cooldown seconds until it is destroyed. */
static int32_t attack(void *user, void *agent, const ArborNode *node, double dt) {
    (void)user;
    Droid *me = agent;
    ArborValue input = {0}, cooldown = {0};
    CHECK(arbor_call_input(node, &input));
    CHECK(arbor_call_field(node, "cooldown", &cooldown));
    Droid *target = entity(&input);
    if (!target)
        return ARBOR_SUCCESS;
    if (distance(me, target) > me->range) {
        CHECK(arbor_call_fail_because(node, "target out of range"));
        return ARBOR_FAILURE;
    }
    me->cooldown_left -= dt;
    if (me->cooldown_left <= 0) {
        target->health -= me->damage;
        me->cooldown_left = cooldown.number;
    }
    return target->health <= 0 ? ARBOR_SUCCESS : ARBOR_RUNNING;
}

/* Flee: runs from the droid in in_context until `distance` away. */
static int32_t flee(void *user, void *agent, const ArborNode *node, double dt) {
    (void)user;
    Droid *me = agent;
    ArborValue input = {0}, far = {0};
    CHECK(arbor_call_input(node, &input));
    CHECK(arbor_call_field(node, "distance", &far));
    Droid *threat = entity(&input);
    if (!threat || distance(me, threat) >= far.number)
        return ARBOR_SUCCESS;
    step_towards(me, 2 * me->x - threat->x, 2 * me->y - threat->y, dt);
    return ARBOR_RUNNING;
}

/* Wander's memory: how many legs walked, so each leg heads elsewhere. */
static void wander_enter(void *user, void *agent, const ArborNode *node) {
    (void)user;
    (void)agent;
    *node->memory = 0;
}

/* Wander: walks legs of a second each around the arena, within radius; runs until
 * stopped (its node's max_duration stops it). */
static int32_t wander(void *user, void *agent, const ArborNode *node, double dt) {
    (void)user;
    Droid *me = agent;
    ArborValue radius = {0};
    CHECK(arbor_call_field(node, "radius", &radius));
    if (node->step % 10 == 0)
        *node->memory += 1;
    double angle = (double)(*node->memory * 137 % 360) * 3.14159265358979 / 180.0;
    step_towards(me, 10 + cos(angle) * radius.number, 6 + sin(angle) * radius.number, dt);
    return ARBOR_RUNNING;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: droid_arena TREE STEPS TRACE [DROIDS]\n");
        return 2;
    }
    int steps = atoi(argv[2]);
    if (argc > 4)
        droid_count = atoi(argv[4]);
    if (droid_count < 1 || droid_count > 5) {
        fprintf(stderr, "DROIDS is 1 to 5\n");
        return 2;
    }
    if (arbor_abi_version() != ARBOR_ABI_VERSION) {
        fprintf(stderr, "built for Arbor's ABI %d, loaded %u\n", ARBOR_ABI_VERSION, arbor_abi_version());
        return 2;
    }

    ArborRuntime runtime = 0;
    CHECK(arbor_runtime_new(&runtime));
    /* The arena's kinds are among Arbor's own (their fields are known); their behaviour
     * is the game's. */
    ArborAction actions[] = {
        {.execute = find_closest},
        {.execute = move_to},
        {.execute = attack},
        {.execute = flee},
        {.execute = wander, .enter = wander_enter},
    };
    const char *kinds[] = {"FindClosest", "MoveTo", "Attack", "Flee", "Wander"};
    for (int i = 0; i < 5; i++)
        CHECK(arbor_runtime_register_action(runtime, kinds[i], &actions[i]));
    CHECK(arbor_runtime_register_condition(runtime, "IsStronger", is_stronger, NULL));

    ArborTree tree = 0;
    CHECK(arbor_tree_load(runtime, argv[1], &tree));
    ArborAgent agents[5];
    void *data[5];
    for (int i = 0; i < droid_count; i++) {
        CHECK(arbor_agent_new(tree, droids[i].name, 0, &agents[i]));
        data[i] = &droids[i];
    }
    ArborTrace trace = 0;
    CHECK(arbor_trace_open(argv[3], 0.1, 0, agents, (size_t)droid_count, &trace));
    for (int s = 0; s < steps; s++)
        CHECK(arbor_step_all(agents, data, (size_t)droid_count, 0.1));
    CHECK(arbor_trace_close(trace));

    for (int i = 0; i < droid_count; i++) {
        ArborRuns runs = {0};
        CHECK(arbor_agent_runs(agents[i], &runs));
        printf("%s: health %.0f, runs completed %llu (%llu success, %llu failure)\n", droids[i].name,
               droids[i].health, (unsigned long long)(runs.succeeded + runs.failed),
               (unsigned long long)runs.succeeded, (unsigned long long)runs.failed);
        CHECK(arbor_agent_free(agents[i]));
    }
    CHECK(arbor_tree_free(tree));
    CHECK(arbor_runtime_free(runtime));
    return 0;
}
