#pragma once
// Where everything of a plot goes, in pixels of a W×H image, before gnuplot draws it.
//
// Rows from the top: the title, one row per panel (a thin one for switching signals), the event
// strip, the x axis labels, the note line. Columns from the left: the y axis labels, the main
// plot, optionally the zoom plot (its own x axis, the last periods of a switching run), the right
// axis (currents beside voltages), the legend. A row is at least as tall as its legend, and the
// legend column as wide as its longest label, so legends never leave the image: every rectangle
// lies inside [0, W] × [0, H] at every size.
#include <string>
#include <vector>

namespace nsspice::app {

struct PlotRequest;

struct Rect {
  double left = 0, right = 0, top = 0, bottom = 0;  // pixels, y downwards
};

struct PanelGeometry {
  Rect main, zoom;  // zoom: empty (right == left) without a zoom column
  Rect key;         // the legend box
};

struct PlotGeometry {
  int width = 0, height = 0;
  std::vector<PanelGeometry> panels;
  Rect strip, strip_zoom;  // event strip (empty without events)
  bool zoom = false;       // a zoom column (asked for, and the image wide enough)
  double char_width = 0, line_height = 0;
  size_t label_chars = 0;  // legend labels are cut to this many characters
  // Screen fractions for gnuplot (y upwards).
  double sx(double x) const { return x / width; }
  double sy(double y) const { return 1.0 - y / height; }
};

// The geometry of `request` at its width (0: 1200, 1500 with a zoom column) and computed height
// (or request.height when it is larger).
PlotGeometry plot_geometry(const PlotRequest& request);

// A legend label cut to `chars` characters ("…" marks the cut).
std::string fit_label(const std::string& label, size_t chars);

}  // namespace nsspice::app
