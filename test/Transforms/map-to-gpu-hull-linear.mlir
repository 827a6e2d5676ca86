// tessel-map-to-gpu takes a tile loop whose bounds use an outer tile loop's counter
// onto the grid only where that counter appears linearly in them (no floordiv, ceildiv
// or mod of it): the box around the tiles comes from each bound's values at the ends of
// the outer range, which are its extremes only for a linear bound. Here the j tiles run
// to ti floordiv 2: the j tile loop stays a loop in each block of i.
// RUN: tessel-opt %s --tessel-map-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @halved(
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK: scf.for
func.func @halved(%C: memref<128x128xf32>) {
  tpoly.scop {
    affine.for %ti = 0 to 4 {
      affine.for %tj = 0 to affine_map<(d0) -> (d0 floordiv 2 + 1)>(%ti) {
        affine.for %i = affine_map<(d0) -> (d0 * 32)>(%ti) to affine_map<(d0) -> (d0 * 32 + 32)>(%ti) {
          affine.for %j = affine_map<(d0) -> (d0 * 32)>(%tj) to affine_map<(d0) -> (d0 * 32 + 32)>(%tj) {
            %v = affine.load %C[%i, %j] : memref<128x128xf32>
            %two = arith.constant 2.0 : f32
            %w = arith.mulf %v, %two : f32
            affine.store %w, %C[%i, %j] : memref<128x128xf32>
          } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable, tpoly.point}
        } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.point}
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable, tpoly.tile = 32 : i64}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.tile = 32 : i64}
  }
  return
}
