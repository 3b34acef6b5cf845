// SPDX-License-Identifier: GPL-2.0
/*
 * cpufreq_interactive: Android 4.1's "interactive" cpufreq governor, with
 * the behaviour and tunables Panappticon (section 6.3) describes, written
 * against the 6.1 governor API.
 *
 * Each governed cpu samples its load every timer_rate. The load is the
 * busy share of the time since the sample window began, or since the
 * frequency last changed if that is higher. A load of go_hispeed_load or
 * more raises the frequency to at least hispeed_freq at once (higher with
 * the load, scaled on policy->max); a lower load asks for max * load.
 * A frequency is held at least min_sample_time before it is lowered.
 * Each key or touch press boosts every governed cpu to hispeed_freq and
 * restarts that hold.
 *
 * Idle handling follows Android's idle notifier, here the power:cpu_idle
 * tracepoint: a cpu leaving idle with no sample pending starts a fresh
 * window and samples timer_rate later, so a busy first timer_rate after
 * idle reaches hispeed_freq; a cpu at the policy's minimum stops sampling
 * while idle, and one entering idle above it keeps sampling so that it
 * cannot hold the shared clock up.
 *
 * The cpus of a policy share one clock: its frequency is the highest
 * target of its online cpus, set from a work item (the driver may sleep).
 */
#include <linux/cpu.h>
#include <linux/cpufreq.h>
#include <linux/hrtimer.h>
#include <linux/input.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <trace/events/power.h>

/* Tunables, with Android 4.1's defaults and names (see README). */
static unsigned int hispeed_freq = 700000;		/* kHz */
module_param(hispeed_freq, uint, 0644);
MODULE_PARM_DESC(hispeed_freq, "frequency (kHz) of an input or a high-load boost");
static unsigned int go_hispeed_load = 85;		/* percent */
module_param(go_hispeed_load, uint, 0644);
MODULE_PARM_DESC(go_hispeed_load, "load (%) at or above which to go to hispeed_freq");
static unsigned int min_sample_time = 60000;		/* us */
module_param(min_sample_time, uint, 0644);
MODULE_PARM_DESC(min_sample_time, "time (us) a frequency is held before it is lowered");
static unsigned int timer_rate = 20000;			/* us */
module_param(timer_rate, uint, 0644);
MODULE_PARM_DESC(timer_rate, "load sampling period (us)");
static unsigned int above_hispeed_delay;		/* us */
module_param(above_hispeed_delay, uint, 0644);
MODULE_PARM_DESC(above_hispeed_delay, "time (us) at hispeed_freq before going above it");
static bool input_boost = true;
module_param(input_boost, bool, 0644);
MODULE_PARM_DESC(input_boost, "boost to hispeed_freq on each key or touch press");

struct ia_cpu {
	struct hrtimer timer;
	struct ia_policy *ip;		/* NULL while not governed */
	unsigned int cpu;
	u64 window_start_us;		/* wall and idle time when the window began */
	u64 window_idle_us;
	u64 change_start_us;		/* ... and when target_freq last changed */
	u64 change_idle_us;
	unsigned int target_freq;
	unsigned int floor_freq;
	u64 floor_validate_us;
	u64 hispeed_validate_us;
	bool idle_cancel;		/* at the minimum: stop sampling while idle */
};

struct ia_policy {
	struct cpufreq_policy *policy;
	spinlock_t lock;		/* the per-cpu targets and floors */
	struct work_struct speedchange;
	struct mutex speedchange_lock;	/* speedchange against limits and stop */
};

static DEFINE_PER_CPU(struct ia_cpu, ia_cpus);
static DEFINE_MUTEX(ia_users_lock);	/* users, the idle probe and the input handler */
static unsigned int ia_users;

static u64 idle_time_us(unsigned int cpu, u64 *wall_us)
{
	return get_cpu_idle_time(cpu, wall_us, 0);
}

static ktime_t sample_period(void)
{
	return ns_to_ktime((u64)timer_rate * NSEC_PER_USEC);
}

/* Starts a sample window now and samples timer_rate later. */
static void resched(struct ia_cpu *c)
{
	c->window_idle_us = idle_time_us(c->cpu, &c->window_start_us);
	c->idle_cancel = false;
	hrtimer_start(&c->timer, sample_period(), HRTIMER_MODE_REL_PINNED_SOFT);
}

static unsigned int load_since(unsigned int cpu, u64 start_us, u64 start_idle_us, u64 *now_us)
{
	u64 idle = idle_time_us(cpu, now_us);
	u64 wall = *now_us - start_us, busy;

	if (!wall)
		return 0;
	idle -= start_idle_us;
	busy = wall > idle ? wall - idle : 0;
	return div64_u64(100 * busy, wall);
}

/* The table frequency at or below target (CPUFREQ_RELATION_H, as Android 4.1). */
static unsigned int table_freq(struct cpufreq_policy *policy, unsigned int target)
{
	int i;

	if (!policy->freq_table)
		return clamp(target, policy->min, policy->max);
	i = cpufreq_frequency_table_target(policy, target, policy->min, policy->max,
					   CPUFREQ_RELATION_H);
	return policy->freq_table[i].frequency;
}

/* One sample of cpu c; returns whether the policy's frequency must be re-evaluated. */
static bool sample(struct ia_cpu *c, struct cpufreq_policy *policy)
{
	unsigned int load, load_change, new_freq;
	u64 now;

	load = load_since(c->cpu, c->window_start_us, c->window_idle_us, &now);
	load_change = load_since(c->cpu, c->change_start_us, c->change_idle_us, &now);
	load = max(load, load_change);

	if (load >= go_hispeed_load) {
		if (c->target_freq < hispeed_freq) {
			new_freq = hispeed_freq;
		} else {
			new_freq = max(policy->max * load / 100, hispeed_freq);
			if (c->target_freq == hispeed_freq && new_freq > hispeed_freq &&
			    now - c->hispeed_validate_us < above_hispeed_delay)
				return false;
		}
	} else {
		new_freq = policy->max * load / 100;
	}
	if (new_freq <= hispeed_freq)
		c->hispeed_validate_us = now;
	new_freq = table_freq(policy, new_freq);

	/* Lower only after min_sample_time at or above the floor. */
	if (new_freq < c->floor_freq && now - c->floor_validate_us < min_sample_time)
		return false;
	c->floor_freq = new_freq;
	c->floor_validate_us = now;
	if (new_freq == c->target_freq)
		return false;
	c->target_freq = new_freq;
	c->change_idle_us = idle_time_us(c->cpu, &c->change_start_us);
	return true;
}

static enum hrtimer_restart ia_timer(struct hrtimer *t)
{
	struct ia_cpu *c = container_of(t, struct ia_cpu, timer);
	struct ia_policy *ip = READ_ONCE(c->ip);
	struct cpufreq_policy *policy;
	unsigned long flags;
	bool change;

	if (!ip)
		return HRTIMER_NORESTART;
	policy = ip->policy;
	spin_lock_irqsave(&ip->lock, flags);
	change = sample(c, policy);
	spin_unlock_irqrestore(&ip->lock, flags);
	if (change)
		queue_work(system_highpri_wq, &ip->speedchange);

	/* At the maximum nothing can be gained: wait for the next idle exit. */
	if (c->target_freq == policy->max)
		return HRTIMER_NORESTART;
	c->window_idle_us = idle_time_us(c->cpu, &c->window_start_us);
	c->idle_cancel = c->target_freq == policy->min;
	hrtimer_forward_now(t, sample_period());
	return HRTIMER_RESTART;
}

static void speedchange_work(struct work_struct *work)
{
	struct ia_policy *ip = container_of(work, struct ia_policy, speedchange);
	struct cpufreq_policy *policy = ip->policy;
	unsigned int freq = 0, cpu;
	unsigned long flags;

	mutex_lock(&ip->speedchange_lock);
	spin_lock_irqsave(&ip->lock, flags);
	for_each_cpu(cpu, policy->cpus)
		freq = max(freq, per_cpu(ia_cpus, cpu).target_freq);
	spin_unlock_irqrestore(&ip->lock, flags);
	if (freq && freq != policy->cur)
		__cpufreq_driver_target(policy, freq, CPUFREQ_RELATION_H);
	mutex_unlock(&ip->speedchange_lock);
}

/*
 * power:cpu_idle on the cpu itself, in the idle task: Android's idle notifier. The exit
 * event comes with interrupts on, so they are held off here against this cpu's timer.
 */
static void ia_cpu_idle(void *data, unsigned int state, unsigned int cpu)
{
	struct ia_cpu *c = this_cpu_ptr(&ia_cpus);
	struct ia_policy *ip = READ_ONCE(c->ip);
	unsigned long flags;

	if (!ip || cpu != c->cpu)
		return;
	local_irq_save(flags);
	if (state != PWR_EVENT_EXIT) {
		/* Idle above the minimum: keep sampling, or it holds the clock up. */
		if (c->idle_cancel)
			hrtimer_try_to_cancel(&c->timer);
		else if (!hrtimer_active(&c->timer))
			resched(c);
	} else if (!hrtimer_active(&c->timer)) {
		resched(c);
	}
	local_irq_restore(flags);
}

/* Sets every governed cpu's target and floor to hispeed_freq. */
static void boost(void)
{
	struct ia_policy *last = NULL;
	unsigned long flags;
	unsigned int cpu;
	u64 now = ktime_to_us(ktime_get());

	for_each_online_cpu(cpu) {
		struct ia_cpu *c = &per_cpu(ia_cpus, cpu);
		struct ia_policy *ip = READ_ONCE(c->ip);

		if (!ip)
			continue;
		spin_lock_irqsave(&ip->lock, flags);
		if (c->target_freq < hispeed_freq) {
			c->target_freq = hispeed_freq;
			c->hispeed_validate_us = now;
			c->change_idle_us = idle_time_us(cpu, &c->change_start_us);
		}
		c->floor_freq = hispeed_freq;
		c->floor_validate_us = now;
		spin_unlock_irqrestore(&ip->lock, flags);
		if (ip != last)
			queue_work(system_highpri_wq, &ip->speedchange);
		last = ip;
	}
}

/* ---- input: a boost on each key or touch press (EV_KEY, value 1) ---- */

static void ia_input_event(struct input_handle *handle, unsigned int type,
			   unsigned int code, int value)
{
	if (input_boost && type == EV_KEY && value == 1)
		boost();
}

static int ia_input_connect(struct input_handler *handler, struct input_dev *dev,
			    const struct input_device_id *id)
{
	struct input_handle *handle;
	int err;

	handle = kzalloc(sizeof(*handle), GFP_KERNEL);
	if (!handle)
		return -ENOMEM;
	handle->dev = dev;
	handle->handler = handler;
	handle->name = "cpufreq_interactive";
	err = input_register_handle(handle);
	if (err)
		goto free;
	err = input_open_device(handle);
	if (err)
		goto unregister;
	return 0;
unregister:
	input_unregister_handle(handle);
free:
	kfree(handle);
	return err;
}

static void ia_input_disconnect(struct input_handle *handle)
{
	input_close_device(handle);
	input_unregister_handle(handle);
	kfree(handle);
}

static const struct input_device_id ia_input_ids[] = {
	{ .flags = INPUT_DEVICE_ID_MATCH_EVBIT, .evbit = { BIT_MASK(EV_KEY) } },
	{ },
};

static struct input_handler ia_input_handler = {
	.event = ia_input_event,
	.connect = ia_input_connect,
	.disconnect = ia_input_disconnect,
	.name = "cpufreq_interactive",
	.id_table = ia_input_ids,
};

/* ---- the governor ---- */

static int ia_init(struct cpufreq_policy *policy)
{
	struct ia_policy *ip = kzalloc(sizeof(*ip), GFP_KERNEL);
	int err = 0;

	if (!ip)
		return -ENOMEM;
	ip->policy = policy;
	spin_lock_init(&ip->lock);
	mutex_init(&ip->speedchange_lock);
	INIT_WORK(&ip->speedchange, speedchange_work);
	policy->governor_data = ip;

	mutex_lock(&ia_users_lock);
	if (!ia_users++) {
		err = register_trace_cpu_idle(ia_cpu_idle, NULL);
		if (!err) {
			err = input_register_handler(&ia_input_handler);
			if (err)
				unregister_trace_cpu_idle(ia_cpu_idle, NULL);
		}
		if (err)
			ia_users--;
	}
	mutex_unlock(&ia_users_lock);
	if (err) {
		policy->governor_data = NULL;
		kfree(ip);
	}
	return err;
}

static void ia_exit(struct cpufreq_policy *policy)
{
	mutex_lock(&ia_users_lock);
	if (!--ia_users) {
		input_unregister_handler(&ia_input_handler);
		unregister_trace_cpu_idle(ia_cpu_idle, NULL);
		tracepoint_synchronize_unregister();
	}
	mutex_unlock(&ia_users_lock);
	kfree(policy->governor_data);
	policy->governor_data = NULL;
}

static void start_on_cpu(void *data)
{
	resched(data);
}

static int ia_start(struct cpufreq_policy *policy)
{
	struct ia_policy *ip = policy->governor_data;
	u64 now = ktime_to_us(ktime_get());
	unsigned int cpu;

	for_each_cpu(cpu, policy->cpus) {
		struct ia_cpu *c = &per_cpu(ia_cpus, cpu);

		hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_SOFT);
		c->timer.function = ia_timer;
		c->cpu = cpu;
		c->target_freq = policy->cur;
		c->floor_freq = policy->cur;
		c->floor_validate_us = now;
		c->hispeed_validate_us = now;
		c->idle_cancel = false;
		c->window_idle_us = idle_time_us(cpu, &c->window_start_us);
		c->change_start_us = c->window_start_us;
		c->change_idle_us = c->window_idle_us;
		WRITE_ONCE(c->ip, ip);
	}
	/* Each cpu arms its own pinned timer. */
	for_each_cpu(cpu, policy->cpus)
		smp_call_function_single(cpu, start_on_cpu, &per_cpu(ia_cpus, cpu), 1);
	return 0;
}

static void ia_stop(struct cpufreq_policy *policy)
{
	struct ia_policy *ip = policy->governor_data;
	unsigned int cpu;

	for_each_cpu(cpu, policy->cpus)
		WRITE_ONCE(per_cpu(ia_cpus, cpu).ip, NULL);
	/* The idle probe may still be arming a timer: wait it out first. */
	tracepoint_synchronize_unregister();
	for_each_cpu(cpu, policy->cpus)
		hrtimer_cancel(&per_cpu(ia_cpus, cpu).timer);
	cancel_work_sync(&ip->speedchange);
}

static void ia_limits(struct cpufreq_policy *policy)
{
	struct ia_policy *ip = policy->governor_data;

	mutex_lock(&ip->speedchange_lock);
	cpufreq_policy_apply_limits(policy);
	mutex_unlock(&ip->speedchange_lock);
}

static struct cpufreq_governor cpufreq_gov_interactive = {
	.name = "interactive",
	.owner = THIS_MODULE,
	.flags = CPUFREQ_GOV_DYNAMIC_SWITCHING,
	.init = ia_init,
	.exit = ia_exit,
	.start = ia_start,
	.stop = ia_stop,
	.limits = ia_limits,
};

static int __init cpufreq_interactive_init(void)
{
	return cpufreq_register_governor(&cpufreq_gov_interactive);
}

static void __exit cpufreq_interactive_exit(void)
{
	cpufreq_unregister_governor(&cpufreq_gov_interactive);
}

module_init(cpufreq_interactive_init);
module_exit(cpufreq_interactive_exit);
MODULE_DESCRIPTION("Android 4.1's interactive cpufreq governor for the 6.1 governor API");
MODULE_LICENSE("GPL");
