set terminal svg size 900,480 font 'sans,12'
set output 'corpus_histogram.svg'
set title 'Corpus: roots and pages by pages per root (log-2 bins)'
set style data histograms
set style fill solid 0.8 border -1
set ylabel 'roots'
set y2label 'pages'
set ytics nomirror
set y2tics
set grid ytics
plot 'corpus_histogram.dat' using 2:xtic(1) title 'roots' axes x1y1, '' using 3 title 'pages' axes x1y2
