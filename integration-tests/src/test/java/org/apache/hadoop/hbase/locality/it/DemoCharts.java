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
package org.apache.hadoop.hbase.locality.it;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

/** Line charts as PNG files, drawn with Java2D (headless), for the demo's report. */
final class DemoCharts {
  private static final Color[] COLORS = { new Color(0x1f77b4), new Color(0xd62728),
    new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd) };
  private static final int W = 900;
  private static final int H = 420;
  private static final int LEFT = 70;
  private static final int RIGHT = 160;
  private static final int TOP = 40;
  private static final int BOTTOM = 50;

  private DemoCharts() {
  }

  /**
   * Writes a line chart: one line per series of (seconds, value) points, the window
   * [{@code shadeFrom}, {@code shadeTo}] shaded and labelled {@code shadeLabel}.
   */
  static void lineChart(File file, String title, String yLabel, double yMax,
      Map<String, List<double[]>> series, double shadeFrom, double shadeTo, String shadeLabel)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    double xMax = 1;
    for (List<double[]> points : series.values()) {
      for (double[] p : points) {
        // A server that is gone reports no value (NaN): it leaves a gap, not the scale.
        if (Double.isFinite(p[0]) && Double.isFinite(p[1])) {
          xMax = Math.max(xMax, p[0]);
          yMax = Math.max(yMax, p[1]);
        }
      }
    }
    BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, W, H);
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    // healing window
    g.setColor(new Color(0xfff2cc));
    int s0 = LEFT + (int) (pw * shadeFrom / xMax);
    int s1 = LEFT + (int) (pw * shadeTo / xMax);
    g.fillRect(s0, TOP, Math.max(1, s1 - s0), ph);
    g.setColor(new Color(0x9c6500));
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    g.drawString(shadeLabel, s0 + 4, TOP + 14);
    // axes and grid
    g.setColor(Color.LIGHT_GRAY);
    for (int i = 0; i <= 4; i++) {
      int y = TOP + ph - ph * i / 4;
      g.drawLine(LEFT, y, LEFT + pw, y);
    }
    g.setColor(Color.BLACK);
    g.drawRect(LEFT, TOP, pw, ph);
    for (int i = 0; i <= 4; i++) {
      int y = TOP + ph - ph * i / 4;
      g.drawString(String.format("%.3g", yMax * i / 4), 8, y + 4);
    }
    for (int i = 0; i <= 5; i++) {
      int x = LEFT + pw * i / 5;
      g.drawString(String.format("%.0f s", xMax * i / 5), x - 12, TOP + ph + 18);
    }
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString(title, LEFT, 25);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    g.drawString(yLabel, LEFT + pw + 15, TOP + ph);
    g.drawString("time since the load (s)", LEFT + pw / 2 - 60, H - 12);
    // series
    int c = 0;
    g.setStroke(new BasicStroke(2f));
    for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
      g.setColor(COLORS[c % COLORS.length]);
      double[] prev = null;
      for (double[] p : e.getValue()) {
        if (!Double.isFinite(p[0]) || !Double.isFinite(p[1])) {
          prev = null;
          continue;
        }
        if (prev != null) {
          g.drawLine(LEFT + (int) (pw * prev[0] / xMax), TOP + ph - (int) (ph * prev[1] / yMax),
            LEFT + (int) (pw * p[0] / xMax), TOP + ph - (int) (ph * p[1] / yMax));
        }
        prev = p;
      }
      int ly = TOP + 20 + 20 * c;
      g.drawLine(LEFT + pw + 15, ly - 4, LEFT + pw + 35, ly - 4);
      g.drawString(e.getKey(), LEFT + pw + 40, ly);
      c++;
    }
    g.dispose();
    file.getParentFile().mkdirs();
    if (!ImageIO.write(img, "png", file)) {
      throw new IOException("no PNG writer for " + file);
    }
  }
}
