// A main chart's points spread over two workers, where the device has the cores for a second
// (start.js: figureWorker). The numbers' worker simulates the chart's points in its own order,
// the sketch's first; meanwhile the figures' worker, asked "help", simulates the rest of them
// from the end backwards, and each reply's points go to the numbers' worker with its next
// request (Job.told), which then simulates none of them. Both workers run the same simulator
// in the same Python, so a point told is the very number the first would have found
// (sim/show/page.py: Told); it goes as the JSON text Python wrote, never parsed here, since
// JavaScript would write 1.0 back as 1. Where the two meet, a point may be simulated twice:
// it costs time, never a number.

/**
 * Help the numbers' worker with chart `name`'s points for `job` until the figures' worker has
 * none left to do, the job is done, or newer settings take over. Never rejects: a worker
 * lost or refusing leaves the rest to the numbers' worker.
 * @param {import("./latest.js").Job} job @param {string} name
 * @param {(type: string, body: Object) => Promise<any>} call  asks the figures' worker
 * @returns {Promise<void>}
 */
export async function help(job, name, call) {
  let done = 0;
  try {
    while (!job.done && !job.left) {
      const reply = await call("help", { name, settings: job.settings, done, main: job.parts.get(name) ?? 0 });
      if (job.done || job.left) return;
      job.told.push(reply.points);
      done = reply.done;
      if (reply.left === 0) return;
    }
  } catch {
    // the numbers' worker simulates the rest itself
  }
}
