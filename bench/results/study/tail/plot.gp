set terminal svg size 900,520 font 'sans,12'
set output 'tail_sweep.svg'
set grid
set key right bottom
set title 'Regroup tail sweep: makespan flat-regroup / lineage vs the tail cost'
set xlabel 'tail: moving a page, % of its OCR work'
set ylabel 'makespan ratio flat-regroup / lineage'
set xrange [0:*]
set label 'paper, vs Ray Data: 1.151' at graph 0.02, first 1.163
set label 'paper, vs Daft: 1.408' at graph 0.02, first 1.42
plot 'tail.dat' using 1:2 with linespoints lw 2 title 'flat-regroup / rop-pipeline', 'tail.dat' using 1:3 with linespoints lw 2 title 'flat-regroup / lineage', 1.151 with lines dt 2 lw 1.5 title 'paper: +15.1% over Ray Data', 1.408 with lines dt 2 lw 1.5 title 'paper: +40.8% over Daft'
