import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cryptoIds, ID_WINDOW_MS, RECORD_ID_PATTERN, SEARCH_ID_PATTERN, windowedIdBody } from "./ids.ts";

describe("search and record ids", () => {
  test("have the spec's formats and do not repeat", () => {
    const search = new RegExp(SEARCH_ID_PATTERN);
    const record = new RegExp(RECORD_ID_PATTERN);
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const s = cryptoIds.searchId();
      const r = cryptoIds.recordId();
      assert.match(s, search);
      assert.match(r, record);
      seen.add(s.slice(5));
      seen.add(r.slice(4));
    }
    assert.equal(seen.size, 10_000);
  });

  test("ids made within one window share their first 4 characters and no more", () => {
    let now = 10_000;
    const body = windowedIdBody(() => now);
    const first = body();
    const ids = [first];
    for (let i = 0; i < 200; i++) {
      now += (ID_WINDOW_MS - 1) / 200;
      ids.push(body());
    }
    for (const id of ids) {
      assert.equal(id.length, 16);
      assert.equal(id.slice(0, 4), first.slice(0, 4));
    }
    // The other 12 characters are the id's own: 200 ids never agree on all of them, and the
    // character after the prefix takes many values (12 random characters each).
    assert.equal(new Set(ids.map((id) => id.slice(4))).size, ids.length);
    assert.ok(new Set(ids.map((id) => id[4])).size > 20, "new Set(ids.map((id) => id[4])).size > 20");
  });

  test("a new window, or a clock that went back, draws a new shared part", () => {
    let now = 50_000;
    const body = windowedIdBody(() => now);
    const forward = new Set<string>();
    for (let w = 0; w < 6; w++) {
      forward.add(body().slice(0, 4));
      now += ID_WINDOW_MS;
    }
    // Six independent draws from 62^4 values are all equal only by a 1-in-10^38 chance.
    assert.ok(forward.size > 1, "forward.size > 1");
    // Without a new window on a backward jump, these ids would all keep the last window's part
    // until the clock caught up with where that window ended.
    const backward = new Set<string>();
    for (let w = 0; w < 6; w++) {
      now -= 2 * ID_WINDOW_MS;
      backward.add(body().slice(0, 4));
    }
    assert.ok(backward.size > 1, "backward.size > 1");
  });
});
