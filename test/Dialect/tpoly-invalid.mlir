// RUN: tessel-opt %s --split-input-file --verify-diagnostics

func.func @tile_size_zero() {
  // expected-error @+1 {{'tpoly.scop' op tile size #1 is 0; tile sizes must be positive}}
  tpoly.scop tile_sizes [32, 0] {
  }
  return
}

// -----

func.func @tile_size_negative() {
  // expected-error @+1 {{'tpoly.scop' op tile size #0 is -8; tile sizes must be positive}}
  tpoly.scop tile_sizes [-8] {
  }
  return
}

// -----

func.func @share_array_twice() {
  // expected-error @+1 {{'tpoly.scop' op array 'A' is named by more than one share hint}}
  tpoly.scop share [#tpoly.share<"A"[TBY][*]>, #tpoly.share<"B"[*][TBX]>, #tpoly.share<"A"[*][TBX], coalesce>] {
  }
  return
}

// -----

func.func @share_not_a_hint() {
  // expected-error @+1 {{'tpoly.scop' op attribute 'share' failed to satisfy constraint: array of #tpoly.share hints}}
  tpoly.scop share ["A"] {
  }
  return
}

// -----

func.func @share_constant_extent_zero() {
  // expected-error @+1 {{extent #1 of 'A' is 0; constant extents must be positive}}
  tpoly.scop share [#tpoly.share<"A"[TBY][0]>] {
  }
  return
}

// -----

func.func @share_constant_extent_negative() {
  // expected-error @+1 {{extent #0 of 'B' is -2; constant extents must be positive}}
  tpoly.scop share [#tpoly.share<"B"[TBX - TBX - 2]>] {
  }
  return
}

// -----

func.func @share_division_by_zero() {
  // expected-error @+1 {{division by a non-positive constant (0) in an extent}}
  tpoly.scop share [#tpoly.share<"A"[TBX / 0]>] {
  }
  return
}

// -----

func.func @share_bad_extent() {
  // expected-error @+1 {{expected an extent: an integer, TBX, TBY, TBZ or a parenthesized expression}}
  tpoly.scop share [#tpoly.share<"A"[TBW]>] {
  }
  return
}

// -----

func.func @share_empty_name() {
  // expected-error @+1 {{share hint needs a non-empty array name}}
  tpoly.scop share [#tpoly.share<""[TBX]>] {
  }
  return
}

// -----

func.func @share_unknown_hint() {
  // expected-error @+1 {{unknown share hint 'reuse'; expected 'coalesce'}}
  tpoly.scop share [#tpoly.share<"A"[TBX], reuse>] {
  }
  return
}

// -----

func.func @mapping_dim_twice() {
  // expected-error @+1 {{processor dimension 'block_x' is used more than once}}
  tpoly.scop mapping <[block_x, block_x], [thread_y, thread_x]> {
  }
  return
}

// -----

func.func @mapping_thread_dim_twice() {
  // expected-error @+1 {{processor dimension 'thread_x' is used more than once}}
  tpoly.scop mapping <[block_y, block_x], [thread_x, sequential, thread_x]> {
  }
  return
}

// -----

func.func @mapping_thread_on_tile_loop() {
  // expected-error @+1 {{tile loop #1 is mapped to 'thread_x'; expected block_x, block_y, block_z or sequential}}
  tpoly.scop mapping <[block_y, thread_x], [thread_y, sequential]> {
  }
  return
}

// -----

func.func @mapping_block_on_point_loop() {
  // expected-error @+1 {{point loop #0 is mapped to 'block_z'; expected thread_x, thread_y, thread_z or sequential}}
  tpoly.scop mapping <[block_x], [block_z]> {
  }
  return
}

// -----

func.func @mapping_unknown_dim() {
  // expected-error @+1 {{unknown processor dimension 'warp_x'; expected block_x, block_y, block_z, thread_x, thread_y, thread_z or sequential}}
  tpoly.scop mapping <[block_x], [warp_x]> {
  }
  return
}

// -----

func.func @yield_types_mismatch(%x: i32) -> f32 {
  %r = tpoly.scop -> f32 {
    // expected-error @+1 {{'tpoly.yield' op yields 1 value(s) of types ('i32') but the enclosing tpoly.scop has result types ('f32')}}
    tpoly.yield %x : i32
  }
  return %r : f32
}

// -----

func.func @yield_outside_scop() {
  // expected-error @+1 {{'tpoly.yield' op expects parent op 'tpoly.scop'}}
  tpoly.yield
}

// -----

func.func @missing_yield_values() -> f32 {
  // expected-error @+1 {{'tpoly.yield' op yields 0 value(s) of types () but the enclosing tpoly.scop has result types ('f32')}}
  %r = tpoly.scop -> f32 {
  }
  return %r : f32
}

// -----

func.func @scop_region_arguments() {
  // expected-error @+1 {{'tpoly.scop' op region should have no arguments}}
  "tpoly.scop"() ({
  ^bb0(%x: index):
    "tpoly.yield"() : () -> ()
  }) : () -> ()
  return
}
