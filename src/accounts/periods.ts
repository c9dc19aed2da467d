/**
 * Credit periods of paid plans: they end on the monthly anniversary of the subscription.
 * A subscription started on the 31st renews on the last day of shorter months.
 */

/** The anniversary `months` months after `anchor` (epoch ms), clamped to the month's last day. */
export function addMonths(anchor: number, months: number): number {
  const d = new Date(anchor);
  const day = d.getUTCDate();
  const target = new Date(
    Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()),
  );
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target.getTime();
}

/** The first anniversary of `anchor` that is after `now`. */
export function nextPeriodEnd(anchor: number, now: number): number {
  let months = 1;
  // Jump close first so a long-idle account does not loop month by month for years.
  const approx = Math.floor((now - anchor) / (31 * 24 * 3600 * 1000));
  if (approx > 1) months = approx;
  let end = addMonths(anchor, months);
  while (end <= now) end = addMonths(anchor, ++months);
  while (months > 1 && addMonths(anchor, months - 1) > now) end = addMonths(anchor, --months);
  return end;
}
