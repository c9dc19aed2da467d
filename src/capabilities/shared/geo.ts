/**
 * Coordinates as providers send them and the distance between two points, for capabilities that
 * filter or rank by a caller's location (places.search's `radius_m` and `distance_m`).
 */
import { Type } from "@sinclair/typebox";
import { numeric, obj } from "./read.ts";

export interface LatLon {
  lat: number;
  lon: number;
}

const EARTH_RADIUS_M = 6_371_008.8;

/**
 * SerpApi's `gps_coordinates` as its answers give them (hotels, places): both numbers when present, so
 * a renamed or retyped coordinate is drift (upstream/response-check.ts), never a record without a place.
 */
export const gpsCoordinates = Type.Object({ latitude: Type.Number(), longitude: Type.Number() });

/** `{latitude, longitude}` (SerpApi's `gps_coordinates`) as `{lat, lon}`, when both are real coordinates. */
export function coordinatesOf(value: unknown): LatLon | undefined {
  const o = obj(value);
  const lat = numeric(o?.latitude);
  const lon = numeric(o?.longitude);
  if (lat === undefined || lon === undefined || Math.abs(lat) > 90 || Math.abs(lon) > 180) return undefined;
  return { lat, lon };
}

/** Great-circle distance in metres (haversine, mean Earth radius). */
export function distanceMeters(a: LatLon, b: LatLon): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}
