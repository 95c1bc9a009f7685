/*
 * Licensed to the Apache Software Foundation (ASF) under one
 * or more contributor license agreements.  See the NOTICE file
 * distributed with this work for additional information
 * regarding copyright ownership.  The ASF licenses this file
 * to you under the Apache License, Version 2.0 (the
 * "License"); you may not use this file except in compliance
 * with the License.  You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package org.apache.hadoop.hbase.locality.it.harness;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.File;
import java.io.IOException;
import java.text.DecimalFormat;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Line charts of the demo's report, as PNG files drawn with JFreeChart: time in seconds on the
 * x axis, one line per series (a silence of more than 3 s between points is left as a gap), the
 * crash marked by a vertical line and the healing window shaded.
 */
public final class Charts {
  private static final Font LABEL = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
  /** Consecutive points further apart than this (seconds) are not joined by a line. */
  private static final double GAP_SECONDS = 3;

  private Charts() {
  }

  /**
   * Writes a line chart of {@code series} (name to (seconds, value) points; a NaN value, e.g. a
   * server that is gone, leaves a gap) with the y axis from 0 to at least {@code yMin} and the
   * events marked: {@code crashAt} (NaN: none) and the window [{@code healFrom}, {@code healTo}]
   * (an unknown end shades up to the last point).
   */
  public static void lineChart(File file, String title, String xLabel, String yLabel,
      double yMin, Map<String, List<double[]>> series, double crashAt, double healFrom,
      double healTo) throws IOException {
    lineChart(file, title, xLabel, yLabel, yMin, false, series, crashAt, healFrom, healTo);
  }

  /**
   * As {@link #lineChart(File, String, String, String, double, Map, double, double, double)},
   * with a logarithmic y axis if {@code logY} (for latencies: a read that waited out a crash
   * must not flatten every other point), where values of 0 or less leave a gap.
   */
  public static void lineChart(File file, String title, String xLabel, String yLabel,
      double yMin, boolean logY, Map<String, List<double[]>> series, double crashAt,
      double healFrom, double healTo) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYSeriesCollection data = new XYSeriesCollection();
    double xMax = 0;
    for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
      XYSeries s = new XYSeries(e.getKey(), true, true);
      double prev = Double.NaN;
      for (double[] p : e.getValue()) {
        if (Double.isFinite(p[0])) {
          // Points come about a second apart: a longer silence (nothing sampled, e.g. while
          // the crashed server's regions were in transition) is a gap, not a straight line.
          if (p[0] - prev > GAP_SECONDS) {
            s.add((prev + p[0]) / 2, null);
          }
          boolean plotted = Double.isFinite(p[1]) && (!logY || p[1] > 0);
          s.add(p[0], plotted ? (Number) p[1] : null);
          xMax = Math.max(xMax, p[0]);
          prev = p[0];
        }
      }
      data.addSeries(s);
    }
    JFreeChart chart = ChartFactory.createXYLineChart(title, xLabel, yLabel, data,
      PlotOrientation.VERTICAL, true, false, false);
    XYPlot plot = chart.getXYPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    if (logY) {
      LogAxis axis = new LogAxis(yLabel + " (log scale)");
      axis.setBase(10);
      axis.setTickUnit(new NumberTickUnit(1));
      axis.setMinorTickMarksVisible(true);
      axis.setNumberFormatOverride(new DecimalFormat("#,##0.#"));
      plot.setRangeAxis(axis);
    } else {
      plot.getRangeAxis().setLowerBound(0);
      if (plot.getRangeAxis().getUpperBound() < yMin) {
        plot.getRangeAxis().setUpperBound(yMin * 1.05);
      }
    }
    plot.getDomainAxis().setLabelFont(LABEL);
    plot.getRangeAxis().setLabelFont(LABEL);
    for (int i = 0; i < data.getSeriesCount(); i++) {
      plot.getRenderer().setSeriesStroke(i, new BasicStroke(2f));
    }
    if (Double.isFinite(healFrom)) {
      double to = Double.isFinite(healTo) ? healTo : xMax;
      IntervalMarker healing = new IntervalMarker(healFrom, Math.max(healFrom, to),
        new Color(0x2ca02c), new BasicStroke(1f), null, null, 0.15f);
      healing.setLabel(Double.isFinite(healTo) ? "healing" : "healing (not done)");
      healing.setLabelFont(LABEL);
      healing.setLabelPaint(Color.DARK_GRAY);
      healing.setLabelAnchor(RectangleAnchor.TOP);
      healing.setLabelTextAnchor(TextAnchor.TOP_CENTER);
      plot.addDomainMarker(healing, Layer.BACKGROUND);
    }
    if (Double.isFinite(crashAt)) {
      ValueMarker crash = new ValueMarker(crashAt, new Color(0xd62728), new BasicStroke(2f));
      crash.setLabel("crash");
      crash.setLabelFont(LABEL);
      crash.setLabelAnchor(RectangleAnchor.TOP_LEFT);
      crash.setLabelTextAnchor(TextAnchor.TOP_RIGHT);
      plot.addDomainMarker(crash, Layer.FOREGROUND);
    }
    ChartUtils.saveChartAsPNG(file, chart, 900, 450);
  }
}
